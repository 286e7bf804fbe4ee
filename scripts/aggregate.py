"""Aggregate fine-tuning metrics over seeds: scores, summary, averages, Markdown summary,
and each distilled student's retention of its teacher's scores."""

from biocompact.report.rules import aggregate
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    aggregate(named_files(snakemake.params), outputs=named_files(snakemake.output))
