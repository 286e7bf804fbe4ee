"""Score the majority-class baseline of one task."""
from biocompact.finetuning.baseline import majority_baseline
from biocompact.runlog import job_logging

with job_logging(snakemake) as log:  # noqa: F821  (snakemake is injected)
    majority_baseline(
        snakemake.params.task,  # noqa: F821
        snakemake.output.metrics,  # noqa: F821
        task_name=snakemake.wildcards.task,  # noqa: F821
    )
