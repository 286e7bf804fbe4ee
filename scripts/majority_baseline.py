"""Score the constant floors (majority class, all-positive) of one task."""

from biocompact.finetuning.rules import majority_baseline
from biocompact.taskfiles.settings import FinetuningTask
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    majority_baseline(
        FinetuningTask.from_entry(snakemake.params.task), outputs=named_files(snakemake.output)
    )
