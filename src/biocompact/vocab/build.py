"""The vocabulary rule: train on training documents, measure on held-out ones."""

from __future__ import annotations

import os
from collections.abc import Sequence
from itertools import islice

from transformers import AutoTokenizer

from biocompact.corpus.textshards import iter_sentences
from biocompact.files.atomic import atomic_path, write_json
from biocompact.locations import resolve_location
from biocompact.records.base import record_data
from biocompact.records.vocabulary import ReferenceStatistics, VocabularyStatistics
from biocompact.vocab.settings import PRETRAINED, VocabularySettings
from biocompact.vocab.stats import vocabulary_statistics
from biocompact.vocab.train import train_vocabulary


def copy_checkpoint_tokenizer(checkpoint: str, out_tokenizer: str | os.PathLike):
    """Save the tokenizer of ``checkpoint`` (folder, hub name, python-package:) as a vocabulary."""
    tokenizer = AutoTokenizer.from_pretrained(resolve_location(checkpoint))
    with atomic_path(out_tokenizer, is_dir=True) as folder:
        tokenizer.save_pretrained(folder)
    return tokenizer


def build_vocabulary(
    shards: Sequence[str | os.PathLike],
    out_tokenizer: str | os.PathLike,
    out_stats: str | os.PathLike,
    name: str,
    settings: VocabularySettings,
    *,
    heldout_fraction: float,
    max_heldout_sentences: int,
) -> VocabularyStatistics:
    """Train vocabulary ``name`` as ``settings`` say and write its statistics.

    Training streams the sentences of a ``sample_fraction`` of the training documents
    (memory does not grow with the corpus); statistics use held-out documents only.
    Type ``pretrained`` trains nothing: it copies the tokenizer of ``checkpoint``, the
    vocabulary that continued pretraining of that checkpoint must keep.
    """
    sample_fraction = settings.sample_fraction
    pretrained = settings.type == PRETRAINED
    if pretrained:
        assert settings.checkpoint is not None  # VocabularySettings checks: type pretrained has one
        tokenizer = copy_checkpoint_tokenizer(settings.checkpoint, out_tokenizer)
    else:
        tokenizer = train_vocabulary(
            lambda: iter_sentences(
                shards, heldout_fraction, heldout=False, sample_fraction=sample_fraction
            ),
            out_tokenizer,
            settings.type,
            **settings.trainer_options(),
        )
    heldout = list(
        islice(iter_sentences(shards, heldout_fraction, heldout=True), max_heldout_sentences)
    )
    statistics = vocabulary_statistics(tokenizer, heldout)
    reference = None
    if settings.reference:
        reference_tokenizer = AutoTokenizer.from_pretrained(resolve_location(settings.reference))
        reference = ReferenceStatistics(
            name=settings.reference,
            statistics=vocabulary_statistics(reference_tokenizer, heldout),
        )
    stats = VocabularyStatistics(
        vocab=name,
        type=settings.type,
        lowercase=None if pretrained else settings.lowercase,
        sample_fraction=None if pretrained else sample_fraction,
        checkpoint=settings.checkpoint,
        statistics=statistics,
        reference=reference,
    )
    write_json(out_stats, record_data(stats))
    return stats
