"""Split the documents of one local text source into sentences."""

from biocompact.corpus.local_text import run_local_text_split
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    run_local_text_split(
        named_files(snakemake.params),
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
    )
