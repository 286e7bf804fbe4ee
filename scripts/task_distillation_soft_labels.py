"""Compute and store the teacher's soft labels on one transfer set."""

from biocompact.runlog import job_logging
from biocompact.task_distillation.soft_labels import compute_soft_labels

with job_logging(snakemake):
    compute_soft_labels(
        snakemake.input.teacher,
        snakemake.input.transfer,
        snakemake.params.task,
        snakemake.params.temperature,
        snakemake.output.soft_labels,
        snakemake.output.meta,
        threads=snakemake.threads,
        experiment=snakemake.wildcards.experiment,
        transfer=snakemake.wildcards.transfer,
    )
