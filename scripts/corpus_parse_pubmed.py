"""Parse one PubMed XML file into JSON-lines citations and a summary."""

from biocompact.corpus.pubmed import run_pubmed_parsing
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    run_pubmed_parsing(
        named_files(snakemake.params),
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
    )
