"""Aggregate fine-tuning metrics over seeds: scores, summary, averages, Markdown summary,
and each distilled student's retention of its teacher's scores."""

from biocompact.entries import parse_entry
from biocompact.report.rules import aggregate
from biocompact.report.settings import ScoreAggregation
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    aggregate(
        parse_entry(ScoreAggregation, named_files(snakemake.params), "rule aggregate"),
        outputs=named_files(snakemake.output),
    )
