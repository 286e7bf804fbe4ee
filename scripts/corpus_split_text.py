"""Split the documents of one local text source into sentences."""

from biocompact.corpus.rules import corpus_split_text
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    corpus_split_text(
        named_files(snakemake.params),
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
    )
