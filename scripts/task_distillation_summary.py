"""Medians over seeds of every task-specific distillation evaluation, as one CSV."""

from biocompact.runlog import job_logging, named_files
from biocompact.task_distillation.summary import run_summary

with job_logging(snakemake):
    run_summary(named_files(snakemake.params), outputs=named_files(snakemake.output))
