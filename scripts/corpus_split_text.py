"""Split the documents of one local text source into sentences."""

from biocompact.corpus.local_text import split_local_text
from biocompact.runlog import job_logging

with job_logging(snakemake):
    split_local_text(
        list(snakemake.input),
        snakemake.output.sentences,
        snakemake.output.stats,
        **snakemake.params,
    )
