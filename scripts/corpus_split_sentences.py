"""Split the latest citations of one PubMed file into sentences."""

from biocompact.corpus.sentences import run_sentence_split
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    run_sentence_split(
        named_files(snakemake.params),
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
    )
