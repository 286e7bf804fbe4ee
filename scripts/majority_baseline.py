"""Score the majority-class baseline of one task."""

from biocompact.finetuning.baseline import majority_baseline
from biocompact.runlog import job_logging

with job_logging(snakemake) as log:
    majority_baseline(
        snakemake.params.task,
        snakemake.output.metrics,
        task_name=snakemake.wildcards.task,
    )
