"""Download one source archive of the dataset registry and verify its SHA-256."""

from biocompact.datasets.rules import download_dataset
from biocompact.datasets.settings import SourceDownload
from biocompact.entries import parse_entry
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    download_dataset(
        parse_entry(SourceDownload, named_files(snakemake.params), "rule download_dataset"),
        outputs=named_files(snakemake.output),
    )
