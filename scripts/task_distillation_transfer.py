"""Write one transfer set of task-specific distillation as JSON Lines."""

from biocompact.runlog import job_logging
from biocompact.task_distillation.settings import TransferSetSettings
from biocompact.task_distillation.transfer import build_transfer_set

with job_logging(snakemake) as log:
    name = snakemake.wildcards.transfer
    count = build_transfer_set(
        TransferSetSettings.from_entry(name, snakemake.params.settings), snakemake.output[0]
    )
    log.info("transfer set %s: %d examples", name, count)
