"""The vocabulary rule: train on training documents, measure on held-out ones."""

from __future__ import annotations

import os
from collections.abc import Sequence
from itertools import islice

from transformers import AutoTokenizer

from biocompact.atomic import atomic_path, write_json
from biocompact.locations import resolve_location
from biocompact.textshards import iter_sentences
from biocompact.vocab.stats import vocabulary_statistics
from biocompact.vocab.train import train_vocabulary

PRETRAINED = "pretrained"


def copy_checkpoint_tokenizer(checkpoint: str | None, out_tokenizer: str | os.PathLike):
    """Save the tokenizer of ``checkpoint`` (folder, hub name, python-package:) as a vocabulary."""
    if not checkpoint:
        raise ValueError(
            "a vocabulary of type 'pretrained' needs `checkpoint`: the model whose tokenizer it is"
        )
    tokenizer = AutoTokenizer.from_pretrained(resolve_location(checkpoint))
    with atomic_path(out_tokenizer, is_dir=True) as folder:
        tokenizer.save_pretrained(folder)
    return tokenizer


def build_vocabulary(
    shards: Sequence[str | os.PathLike],
    out_tokenizer: str | os.PathLike,
    out_stats: str | os.PathLike,
    name: str,
    settings: dict,
    heldout_fraction: float,
    max_heldout_sentences: int,
) -> dict:
    """Train vocabulary ``name`` from ``settings`` (its config entry) and write its statistics.

    Training streams the sentences of a ``sample_fraction`` of the training documents
    (memory does not grow with the corpus); statistics use held-out documents only.
    Type ``pretrained`` trains nothing: it copies the tokenizer of ``checkpoint``, the
    vocabulary that continued pretraining of that checkpoint must keep.
    """
    settings = dict(settings)
    vocab_type = settings.pop("type")
    reference = settings.pop("reference", None)
    sample_fraction = settings.pop("sample_fraction", 1.0)
    checkpoint = settings.pop("checkpoint", None)
    if vocab_type == PRETRAINED:
        tokenizer = copy_checkpoint_tokenizer(checkpoint, out_tokenizer)
    else:
        tokenizer = train_vocabulary(
            lambda: iter_sentences(
                shards, heldout_fraction, heldout=False, sample_fraction=sample_fraction
            ),
            out_tokenizer, vocab_type, **settings,
        )
    heldout = list(islice(iter_sentences(shards, heldout_fraction, heldout=True), max_heldout_sentences))
    stats = {
        "vocab": name,
        "type": vocab_type,
        "lowercase": settings.get("lowercase") if vocab_type != PRETRAINED else None,
        "sample_fraction": sample_fraction if vocab_type != PRETRAINED else None,
        "checkpoint": checkpoint,
        **vocabulary_statistics(tokenizer, heldout),
        "reference": None,
    }
    if reference:
        reference_tokenizer = AutoTokenizer.from_pretrained(resolve_location(reference))
        stats["reference"] = {"name": reference, **vocabulary_statistics(reference_tokenizer, heldout)}
    write_json(out_stats, stats)
    return stats
