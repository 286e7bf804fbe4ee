"""Download one PMC Open Access file (bulk package or article), optionally MD5-verified."""

from biocompact.corpus.download import download_file, source_url
from biocompact.runlog import job_logging

with job_logging(snakemake) as log:
    download_file(
        source_url(snakemake.params.source, snakemake.wildcards.pmc_file),
        snakemake.output[0],
        verify_md5=snakemake.params.verify_md5,
    )
