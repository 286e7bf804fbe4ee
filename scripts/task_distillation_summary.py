"""Medians over seeds of every task-specific distillation evaluation, as one CSV."""

from biocompact.runlog import job_logging
from biocompact.task_distillation.summary import write_summary

with job_logging(snakemake):
    write_summary(snakemake.output[0], snakemake.params.runs)
