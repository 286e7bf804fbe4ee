# Input functions of the vocabulary stage (vocab.smk); included by common.smk. Uses
# PRETRAINING_SHARDS of corpus_common.smk.

import json

from biocompact.vocab.disk import corpus_disk_mb
from biocompact.vocab.memory import vocabulary_memory_mb as sample_memory_mb
from biocompact.vocab.settings import PRETRAINED as PRETRAINED_VOCABULARY


def shard_stats():
    """Each pretraining shard's statistics: those of the sentence shard it comes from (its
    words, written by that shard's own job; corpus_stats reads them in the shards' order). A
    decontaminated shard holds at most those words, so the memory they give is an upper bound."""
    return dict(
        zip(
            PRETRAINING_SHARDS,
            [
                *rules.corpus_stats.input.stats,
                *rules.corpus_stats.input.pmc_stats,
                *rules.corpus_stats.input.text_stats,
            ],
            strict=True,
        )
    )


def vocabulary_entry(wildcards):
    """The config entry of vocabulary ``wildcards.vocab`` (its settings)."""
    return config["vocabularies"][wildcards.vocab]


def corpus_words(shards):
    """The words of the pretraining ``shards`` (their statistics). Before a shard exists,
    reading it fails and Snakemake leaves the request computed from them to be determined
    (<TBD> in a dry run) until the job is ready."""
    words = 0
    stats_files = shard_stats()
    for shard in shards:
        os.stat(shard)  # a missing shard fails naming the input: <TBD>
        stats = Path(stats_files[shard]).read_text(encoding="utf-8")
        words += json.loads(stats)["words"] if stats else 0  # empty: marked done by --touch
    return words


def vocabulary_memory_mb(wildcards, input):
    """Memory of the vocabulary job: data_jobs.train_vocabulary.mem_mb, or the worst case of
    its sample (biocompact.vocab.memory) from the words of its shards and sample_fraction."""
    configured = config["data_jobs"]["train_vocabulary"]["mem_mb"]
    if configured:
        return configured
    entry = config["vocabularies"][wildcards.vocab]
    if entry["type"] == PRETRAINED_VOCABULARY:  # copies a tokenizer: no sample is trained on
        return sample_memory_mb(0, 1.0)
    return sample_memory_mb(corpus_words(input.shards), entry["sample_fraction"])


def tokenize_memory_mb(wildcards, threads):
    """Memory of the tokenising job: data_jobs.tokenize_corpus.mem_mb, or about 600 MB for
    each of its ``threads`` processes (as many as Snakemake gives it)."""
    return config["data_jobs"]["tokenize_corpus"]["mem_mb"] or 2000 + 600 * threads


def tokenize_disk_mb(wildcards, input):
    """Disk of the tokenising job: its measured peak (biocompact.vocab.disk) from the words
    of its shards."""
    return corpus_disk_mb(corpus_words(input.shards))
