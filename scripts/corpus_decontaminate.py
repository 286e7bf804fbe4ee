"""Remove from one sentence shard every document that holds evaluation text."""

from biocompact.corpus.decontamination import run_decontamination
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    run_decontamination(inputs=named_files(snakemake.input), outputs=named_files(snakemake.output))
