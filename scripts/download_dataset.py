"""Download one source archive of the dataset registry and verify its SHA-256."""

from biocompact.datasets.rules import download_dataset
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    download_dataset(
        named_files(snakemake.params),
        outputs=named_files(snakemake.output),
    )
