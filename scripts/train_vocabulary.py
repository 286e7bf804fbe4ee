"""Rule train_vocabulary: train a subword vocabulary and write its statistics."""

from biocompact.entries import parse_entry
from biocompact.vocab.rules import train_vocabulary
from biocompact.vocab.settings import VocabularyTraining
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    train_vocabulary(
        parse_entry(VocabularyTraining, named_files(snakemake.params), "rule train_vocabulary"),
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
        threads=snakemake.threads,
    )
