"""Download one PubMed file and verify it against its MD5 sidecar."""

from biocompact.corpus.rules import corpus_download_pubmed
from biocompact.corpus.settings import PubmedDownload
from biocompact.entries import parse_entry
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    corpus_download_pubmed(
        parse_entry(PubmedDownload, named_files(snakemake.params), "rule corpus_download_pubmed"),
        outputs=named_files(snakemake.output),
    )
