"""Sum every shard's decontamination matches per task and split into contamination.json."""

from biocompact.corpus.rules import corpus_contamination
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    corpus_contamination(inputs=named_files(snakemake.input), outputs=named_files(snakemake.output))
