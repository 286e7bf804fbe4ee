"""Collect the dev and test text of the checked tasks as n-gram hashes (decontamination)."""

from biocompact.corpus.rules import corpus_evaluation_text
from biocompact.corpus.settings import EvaluationText
from biocompact.entries import parse_entry
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    corpus_evaluation_text(
        parse_entry(EvaluationText, named_files(snakemake.params), "rule corpus_evaluation_text"),
        outputs=named_files(snakemake.output),
    )
