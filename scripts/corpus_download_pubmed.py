"""Download one PubMed file and verify it against its MD5 sidecar."""

from biocompact.corpus.download import run_pubmed_download
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    run_pubmed_download(
        named_files(snakemake.params),
        outputs=named_files(snakemake.output),
    )
