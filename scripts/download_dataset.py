"""Download one source archive of the dataset registry and verify its SHA-256."""

from biocompact.datasets.fetch import run_dataset_download
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    run_dataset_download(
        named_files(snakemake.params),
        outputs=named_files(snakemake.output),
    )
