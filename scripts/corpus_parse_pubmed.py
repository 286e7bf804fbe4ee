"""Parse one PubMed XML file into JSON-lines citations and a summary."""

from biocompact.corpus.rules import corpus_parse_pubmed
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    corpus_parse_pubmed(
        named_files(snakemake.params),
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
    )
