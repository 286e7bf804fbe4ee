"""Parse one PubMed XML file into JSON-lines citations and a summary."""

from biocompact.corpus.rules import corpus_parse_pubmed
from biocompact.corpus.settings import PubmedParsing
from biocompact.entries import parse_entry
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    corpus_parse_pubmed(
        parse_entry(PubmedParsing, named_files(snakemake.params), "rule corpus_parse_pubmed"),
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
    )
