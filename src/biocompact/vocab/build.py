"""The vocabulary rule: train on training documents, measure on held-out ones."""

from __future__ import annotations

import os
from collections.abc import Sequence
from itertools import islice

from transformers import AutoTokenizer

from biocompact.atomic import write_json
from biocompact.locations import resolve_location
from biocompact.textshards import iter_sentences
from biocompact.vocab.settings import VocabularySettings
from biocompact.vocab.stats import vocabulary_statistics
from biocompact.vocab.train import train_vocabulary


def build_vocabulary(
    shards: Sequence[str | os.PathLike],
    out_tokenizer: str | os.PathLike,
    out_stats: str | os.PathLike,
    name: str,
    settings: VocabularySettings,
    heldout_fraction: float,
    max_heldout_sentences: int,
) -> dict:
    """Train vocabulary ``name`` as ``settings`` say and write its statistics.

    Training streams the sentences of a ``sample_fraction`` of the training documents
    (memory does not grow with the corpus); statistics use held-out documents only.
    """
    sample_fraction = settings.sample_fraction
    tokenizer = train_vocabulary(
        lambda: iter_sentences(shards, heldout_fraction, heldout=False, sample_fraction=sample_fraction),
        out_tokenizer,
        settings.type,
        **settings.trainer_options(),
    )
    heldout = list(islice(iter_sentences(shards, heldout_fraction, heldout=True), max_heldout_sentences))
    stats = {
        "vocab": name,
        "type": settings.type,
        "lowercase": settings.lowercase,
        "sample_fraction": sample_fraction,
        **vocabulary_statistics(tokenizer, heldout),
        "reference": None,
    }
    if settings.reference:
        reference_tokenizer = AutoTokenizer.from_pretrained(resolve_location(settings.reference))
        stats["reference"] = {"name": settings.reference, **vocabulary_statistics(reference_tokenizer, heldout)}
    write_json(out_stats, stats)
    return stats
