"""Rule tokenize_corpus: tokenise and pack the sentence shards with one vocabulary."""

from biocompact.runlog import job_logging
from biocompact.tokenized_corpus import build_tokenized_corpus

with job_logging(snakemake):
    build_tokenized_corpus(
        shards=snakemake.input.shards,
        tokenizer_dir=snakemake.input.tokenizer,
        out_dir=snakemake.output[0],
        max_seq_length=snakemake.params.max_seq_length,
        heldout_fraction=snakemake.params.heldout_fraction,
        num_proc=snakemake.threads,
        packing=snakemake.params.packing,
    )
