"""Split the latest citations of one PubMed file into sentences."""

from biocompact.corpus.rules import corpus_split_sentences
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    corpus_split_sentences(
        named_files(snakemake.params),
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
    )
