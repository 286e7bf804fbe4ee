"""Write one transfer set of task-specific distillation as JSON Lines."""

from biocompact.entries import parse_entry
from biocompact.task_distillation.rules import transfer_set
from biocompact.task_distillation.settings import TransferSetSettings
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    transfer_set(
        parse_entry(
            TransferSetSettings,
            {**snakemake.params.settings, "name": snakemake.params.name},
            f"task_distillation.transfer_sets.{snakemake.params.name}",
        ),
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
    )
