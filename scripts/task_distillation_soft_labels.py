"""Compute and store the teacher's soft labels on one transfer set."""
from biocompact.runlog import job_logging
from biocompact.task_distillation.soft_labels import compute_soft_labels

with job_logging(snakemake):  # noqa: F821  (snakemake is injected)
    compute_soft_labels(
        snakemake.input.teacher,  # noqa: F821
        snakemake.input.transfer,  # noqa: F821
        snakemake.params.task,  # noqa: F821
        snakemake.params.temperature,  # noqa: F821
        snakemake.output.soft_labels,  # noqa: F821
        snakemake.output.meta,  # noqa: F821
        threads=snakemake.threads,  # noqa: F821
        experiment=snakemake.wildcards.experiment,  # noqa: F821
        transfer=snakemake.wildcards.transfer,  # noqa: F821
    )
