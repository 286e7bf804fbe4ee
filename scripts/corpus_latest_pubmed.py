"""Apply deletions and newer versions across all PubMed files: one keep list per file."""

from biocompact.corpus.rules import corpus_latest_pubmed
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    corpus_latest_pubmed(
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
    )
