"""Download one source archive of the dataset registry and verify its SHA-256."""

from biocompact.datasets.fetch import download_source
from biocompact.datasets.registry import SOURCES
from biocompact.runlog import job_logging

with job_logging(snakemake) as log:
    digest = download_source(
        SOURCES[snakemake.wildcards.source],
        snakemake.params.url,
        snakemake.output[0],
        snakemake.params.lock_file,
        retries=snakemake.params.retries,
    )
    log.info("%s: sha256 %s", snakemake.output[0], digest)
