"""Download one PubMed file and verify it against its MD5 sidecar."""

from biocompact.corpus.download import download_pubmed_file
from biocompact.runlog import job_logging

with job_logging(snakemake) as log:
    download_pubmed_file(
        snakemake.params.source,
        snakemake.params.folder,
        snakemake.wildcards.stem,
        snakemake.output[0],
        verify_md5=snakemake.params.verify_md5,
    )
