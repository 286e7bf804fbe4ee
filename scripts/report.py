"""Render the self-contained HTML report from the result files."""

from biocompact.report.rules import report
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    report(
        named_files(snakemake.params),
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
    )
