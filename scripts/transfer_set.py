"""Write one transfer set of task-specific distillation as JSON Lines."""

from biocompact.task_distillation.rules import transfer_set
from biocompact.task_distillation.settings import TransferSetSettings
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    transfer_set(
        TransferSetSettings.from_entry(snakemake.params.name, snakemake.params.settings),
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
    )
