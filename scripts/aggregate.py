"""Aggregate fine-tuning metrics over seeds: scores, summary, averages, Markdown summary,
and each distilled student's retention of its teacher's scores."""

from biocompact.aggregation import aggregate
from biocompact.retention import write_retention
from biocompact.runlog import job_logging

with job_logging(snakemake):
    outputs = dict(snakemake.output)
    params = dict(snakemake.params)
    retention, teachers = outputs.pop("retention"), params.pop("teachers")
    aggregate(**outputs, **params)
    write_retention(outputs["scores"], outputs["summary"], teachers, retention)
