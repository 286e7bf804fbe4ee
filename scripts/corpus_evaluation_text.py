"""Collect the dev and test text of the checked tasks as n-gram hashes (decontamination)."""

from biocompact.corpus.decontamination import run_evaluation_index
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    run_evaluation_index(named_files(snakemake.params), outputs=named_files(snakemake.output))
