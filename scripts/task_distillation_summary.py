"""Medians over seeds of every task-specific distillation evaluation, as one CSV."""

from biocompact.task_distillation.summary import run_summary
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    run_summary(named_files(snakemake.params), outputs=named_files(snakemake.output))
