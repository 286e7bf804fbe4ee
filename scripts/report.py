"""Render the self-contained HTML report from the result files."""

from biocompact.entries import parse_entry
from biocompact.report.rules import report
from biocompact.report.settings import ReportPage
from biocompact.workflow.config_sections import parse_config
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    page = parse_entry(ReportPage, named_files(snakemake.params), "rule report")
    report(
        page,
        parse_config(page.config).report_facts(),
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
    )
