"""The memory a vocabulary job may need at worst, from the words of the sample it trains on.

Light (no torch, no tokenizers): the workflow sizes the job with it when the job is ready
(``vocabulary_memory_mb`` in ``workflow/rules/vocab_common.smk``; docs/slurm.md).

`tokenizers`' trainers keep every distinct word of the sample with its count and its
pieces; the corpus itself is streamed. Measured by ``benchmarks/data_scale.py`` (a fit over
text whose distinct words grow with its words), the job's peak is about ``BASE_MB`` plus
``KB_PER_DISTINCT_WORD`` a distinct word. How many distinct words a sample of ``w``
words holds follows Heaps' law, ``K * w ** HEAPS_BETA``, with the exponent fitted on real
abstracts and ``K`` taken at the worst case docs/slurm.md allows for: ``WORST_DISTINCT``
distinct words in all of PubMed's ``PUBMED_WORDS`` words, about seven times the fit (never
more distinct words than words). The request adds ``HEADROOM`` on top.
"""

from __future__ import annotations

import math

# Three runs of the benchmark fitted 357-427 MB and 0.83-0.98 KB: the largest, rounded up.
BASE_MB = 430
KB_PER_DISTINCT_WORD = 1.0
HEAPS_BETA = 0.542  # distinct ~ words ** 0.542 on real abstracts (benchmarks/data_scale.py)
PUBMED_WORDS = 4.75e9  # pre-tokenised words (punctuation apart) of PubMed's titles and abstracts
WORST_DISTINCT = 15e6  # distinct words in all of them, at worst (docs/slurm.md)
# Pre-tokenised words (BERT's pre-tokeniser splits off punctuation) per whitespace-separated
# word, the unit of the corpus statistics: 1.17 on the 725 real abstracts, 1.29 on GENIA's.
PRETOKENISED_PER_WORD = 1.3
HEADROOM = 1.25


def worst_case_distinct_words(words: float) -> float:
    """The most distinct words a sample of ``words`` pre-tokenised words is taken to hold."""
    return min(words, WORST_DISTINCT * (words / PUBMED_WORDS) ** HEAPS_BETA)


def vocabulary_memory_mb(corpus_words: int, sample_fraction: float) -> int:
    """Memory (MB) to request for training a vocabulary on ``sample_fraction`` of a corpus
    of ``corpus_words`` whitespace-separated words (its sentence shards' statistics)."""
    sample = corpus_words * sample_fraction * PRETOKENISED_PER_WORD
    peak = BASE_MB + KB_PER_DISTINCT_WORD * worst_case_distinct_words(sample) / 1024
    return math.ceil(peak * HEADROOM)
