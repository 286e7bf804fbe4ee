"""Sum every shard's decontamination matches per task and split into contamination.json."""

from biocompact.corpus.decontamination import run_contamination_summary
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    run_contamination_summary(
        inputs=named_files(snakemake.input), outputs=named_files(snakemake.output)
    )
