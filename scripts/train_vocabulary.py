"""Rule train_vocabulary: train a subword vocabulary and write its statistics."""

from biocompact.vocab.rules import train_vocabulary
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    train_vocabulary(
        named_files(snakemake.params),
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
    )
