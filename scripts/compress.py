"""Write one deployment format (int8 or onnx) of a saved fine-tuned model."""

from biocompact.compression.rules import compress
from biocompact.compression.settings import CompressionFormat
from biocompact.entries import parse_entry
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    compress(
        parse_entry(CompressionFormat, named_files(snakemake.params), "rule compress"),
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
        threads=snakemake.threads,
    )
