"""Split the latest citations of one PubMed file into sentences."""

from biocompact.corpus.sentences import split_sentences
from biocompact.runlog import job_logging

with job_logging(snakemake) as log:
    split_sentences(
        snakemake.input.documents,
        snakemake.input.keep,
        snakemake.output.sentences,
        snakemake.output.stats,
        **snakemake.params,
    )
