"""Render the self-contained HTML report from the result files."""

from biocompact.report import build_report
from biocompact.runlog import job_logging

with job_logging(snakemake):
    build_report(snakemake.output.html, **snakemake.input, **snakemake.params)
