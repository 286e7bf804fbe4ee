"""Remove from one sentence shard every document that holds evaluation text."""

from biocompact.corpus.rules import corpus_decontaminate
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    corpus_decontaminate(inputs=named_files(snakemake.input), outputs=named_files(snakemake.output))
