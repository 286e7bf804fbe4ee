"""Rule train_vocabulary: train a subword vocabulary and write its statistics."""

from biocompact.runlog import job_logging, named_files
from biocompact.vocab.build import run_vocabulary_training

with job_logging(snakemake):
    run_vocabulary_training(
        named_files(snakemake.params),
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
    )
