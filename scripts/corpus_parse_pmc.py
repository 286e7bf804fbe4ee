"""Parse one PMC file (bulk package or article) into JSON-lines documents and a summary."""

from biocompact.corpus.pmc import PmcOptions
from biocompact.corpus.rules import corpus_parse_pmc
from biocompact.entries import parse_entry
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    corpus_parse_pmc(
        parse_entry(PmcOptions, snakemake.params.options, "rule corpus_parse_pmc"),
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
    )
