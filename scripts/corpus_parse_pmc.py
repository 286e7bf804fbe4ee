"""Parse one PMC file (bulk package or article) into JSON-lines documents and a summary."""

from biocompact.corpus.rules import corpus_parse_pmc
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    corpus_parse_pmc(
        named_files(snakemake.params),
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
    )
