"""Split the documents of one local text source into sentences."""

from biocompact.corpus.rules import corpus_split_text
from biocompact.corpus.settings import TextSourceSplitting
from biocompact.entries import parse_entry
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    corpus_split_text(
        parse_entry(TextSourceSplitting, named_files(snakemake.params), "rule corpus_split_text"),
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
    )
