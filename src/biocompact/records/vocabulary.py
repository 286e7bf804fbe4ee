"""``results/vocab/{vocab}/stats.json``: the record of a vocabulary measured on held-out
sentences, beside its reference tokenizer's measures on the same sentences, written by its
job (``vocab.build.build_vocabulary``) and read by the report's vocabulary table
(docs/outputs.md)."""

from __future__ import annotations

from dataclasses import dataclass, field

from biocompact.entries import FLAT
from biocompact.records.base import RecordFile


@dataclass(frozen=True, kw_only=True)
class HeldoutStatistics:
    """A tokenizer on the held-out sentences (``vocab.stats.vocabulary_statistics``): its
    vocabulary's size, the sentences and whitespace-separated words measured, its fertility
    (subword tokens per word) and its unknown-token rate (the share of its tokens that are
    the unknown token)."""

    vocab_size: int
    heldout_sentences: int
    heldout_words: int
    fertility: float
    unk_rate: float


@dataclass(frozen=True, kw_only=True)
class ReferenceStatistics:
    """The reference tokenizer a vocabulary is compared with: its ``name`` (the config's
    ``reference``) and its measures on the vocabulary's held-out sentences."""

    RECORD = "reference"

    name: str
    statistics: HeldoutStatistics = field(metadata=FLAT)


@dataclass(frozen=True, kw_only=True)
class VocabularyStatistics(RecordFile):
    """``stats.json``: the vocabulary's name, type and settings (``lowercase`` and
    ``sample_fraction`` None for type pretrained, which trains nothing; ``checkpoint`` the
    model whose tokenizer a pretrained one is, else None), its measures on the held-out
    sentences, and its reference's (None: no reference). Both settings are always written;
    a record written before ``sample_fraction`` or ``checkpoint`` was reads them as None."""

    FILE = "vocabulary statistics (stats.json)"
    RECORD = "vocabulary statistics"

    vocab: str
    type: str
    lowercase: bool | None
    sample_fraction: float | None = None
    checkpoint: str | None = None
    statistics: HeldoutStatistics = field(metadata=FLAT)
    reference: ReferenceStatistics | None
