"""Split the parsed articles of one PMC file into sentences."""

from biocompact.corpus.rules import corpus_split_pmc
from biocompact.corpus.settings import ArticleSplitting
from biocompact.entries import parse_entry
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    corpus_split_pmc(
        parse_entry(ArticleSplitting, named_files(snakemake.params), "rule corpus_split_pmc"),
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
    )
