"""Rule train_vocabulary: train a subword vocabulary and write its statistics."""

from biocompact.vocab.build import run_vocabulary_training
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    run_vocabulary_training(
        named_files(snakemake.params),
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
    )
