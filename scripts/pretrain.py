"""Rule pretrain: pretraining of one model with its objective (resumable, data-parallel on its GPUs and nodes)."""

from biocompact.language_model_job import train_language_model
from biocompact.runlog import job_logging

with job_logging(snakemake):
    train_language_model(
        snakemake,
        "biocompact.pretraining.run",
        tokenizer_dir=snakemake.input.tokenizer,
        max_seq_length=snakemake.params.max_seq_length,
    )
