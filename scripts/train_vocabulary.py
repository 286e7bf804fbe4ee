"""Rule train_vocabulary: train a subword vocabulary and write its statistics."""

from biocompact.runlog import job_logging
from biocompact.vocab.build import build_vocabulary
from biocompact.vocab.settings import VocabularySettings

with job_logging(snakemake):
    build_vocabulary(
        shards=snakemake.input.shards,
        out_tokenizer=snakemake.output.tokenizer,
        out_stats=snakemake.output.stats,
        name=snakemake.wildcards.vocab,
        settings=VocabularySettings.from_entry(snakemake.params.settings),
        heldout_fraction=snakemake.params.heldout_fraction,
        max_heldout_sentences=snakemake.params.max_heldout_sentences,
    )
