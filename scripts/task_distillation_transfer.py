"""Write one transfer set of task-specific distillation as JSON Lines."""
from biocompact.runlog import job_logging
from biocompact.task_distillation.transfer import build_transfer_set

with job_logging(snakemake) as log:  # noqa: F821  (snakemake is injected)
    count = build_transfer_set(snakemake.params.settings, snakemake.output[0])  # noqa: F821
    log.info("transfer set %s: %d examples", snakemake.wildcards.transfer, count)  # noqa: F821
