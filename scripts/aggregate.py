"""Aggregate fine-tuning metrics over seeds: scores, summary, averages, Markdown summary,
and each distilled student's retention of its teacher's scores."""
from biocompact.aggregation import aggregate
from biocompact.retention import write_retention
from biocompact.runlog import job_logging

with job_logging(snakemake):  # noqa: F821  (snakemake is injected)
    outputs = dict(snakemake.output)  # noqa: F821
    params = dict(snakemake.params)  # noqa: F821
    retention, teachers = outputs.pop("retention"), params.pop("teachers")
    aggregate(**outputs, **params)
    write_retention(outputs["scores"], outputs["summary"], teachers, retention)
