"""Download one source archive of the dataset registry and verify its SHA-256."""

from biocompact.datasets.convert import source_members
from biocompact.datasets.fetch import download_source
from biocompact.datasets.registry import REGISTRY
from biocompact.runlog import job_logging

with job_logging(snakemake) as log:
    source = snakemake.wildcards.source
    digest, skipped = download_source(
        REGISTRY.sources[source],
        snakemake.params.url,
        snakemake.output[0],
        snakemake.params.lock_file,
        source_members(REGISTRY, source),
        retries=snakemake.params.retries,
    )
    log.info("%s: sha256 %s", snakemake.output[0], digest)
    log.info("%d unsafe members skipped (never read): %s", len(skipped), ", ".join(skipped))
