"""Download one PubMed file and verify it against its MD5 sidecar."""

from biocompact.corpus.rules import corpus_download_pubmed
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    corpus_download_pubmed(
        named_files(snakemake.params),
        outputs=named_files(snakemake.output),
    )
