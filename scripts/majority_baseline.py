"""Score the constant floors (majority class, all-positive) of one task."""

from biocompact.entries import parse_entry
from biocompact.finetuning.rules import majority_baseline
from biocompact.taskfiles.settings import FinetuningTask
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    majority_baseline(
        parse_entry(FinetuningTask, snakemake.params.task, "rule majority_baseline"),
        outputs=named_files(snakemake.output),
    )
