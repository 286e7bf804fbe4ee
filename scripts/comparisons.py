"""Every comparison of the report with its interval: paired bootstrap over test units, ASO
over seeds, Holm's correction over the tasks; every score and average with its interval."""

from biocompact.entries import parse_entry
from biocompact.report.rules import comparisons
from biocompact.report.settings import ComparisonStudy
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    comparisons(
        parse_entry(ComparisonStudy, named_files(snakemake.params), "rule comparisons"),
        outputs=named_files(snakemake.output),
        threads=snakemake.threads,
    )
