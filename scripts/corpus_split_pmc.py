"""Split the parsed articles of one PMC file into sentences."""

from biocompact.corpus.sentences import run_pmc_sentence_split
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    run_pmc_sentence_split(
        named_files(snakemake.params),
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
    )
