"""Medians over seeds of every task-specific distillation evaluation, as one CSV."""

from biocompact.entries import parse_entry
from biocompact.task_distillation.rules import task_distillation_summary
from biocompact.task_distillation.settings import EvaluationRuns
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    task_distillation_summary(
        parse_entry(
            EvaluationRuns, named_files(snakemake.params), "rule task_distillation_summary"
        ),
        outputs=named_files(snakemake.output),
    )
