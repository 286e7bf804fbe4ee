"""Collect the dev and test text of the checked tasks as n-gram hashes (decontamination)."""

from biocompact.corpus.rules import corpus_evaluation_text
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    corpus_evaluation_text(named_files(snakemake.params), outputs=named_files(snakemake.output))
