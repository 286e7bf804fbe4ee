"""Compute and store the teacher's soft labels on one transfer set."""

from biocompact.entries import parse_entry
from biocompact.task_distillation.rules import soft_labels
from biocompact.task_distillation.soft_labels import SoftLabelRun
from biocompact.taskfiles.settings import FinetuningTask
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    soft_labels(
        SoftLabelRun(
            task=parse_entry(FinetuningTask, snakemake.params.task, "rule soft_labels"),
            temperature=snakemake.params.temperature,
            experiment=snakemake.wildcards.experiment,
            transfer=snakemake.wildcards.transfer,
        ),
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
        threads=snakemake.threads,
    )
