"""The compression summary CSV from every format's evaluation.json."""

from biocompact.compression.summary import write_summary
from biocompact.runlog import job_logging

with job_logging(snakemake):
    write_summary(snakemake.input, snakemake.output[0])
