"""Aggregate fine-tuning metrics over seeds: scores, summary, averages, Markdown summary."""
from biocompact.aggregation import aggregate
from biocompact.runlog import job_logging

with job_logging(snakemake):  # noqa: F821  (snakemake is injected)
    aggregate(**snakemake.output, **snakemake.params)  # noqa: F821
