"""The compression summary CSV from every format's evaluation.json."""

from biocompact.compression.rules import compression_summary
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    compression_summary(
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
    )
