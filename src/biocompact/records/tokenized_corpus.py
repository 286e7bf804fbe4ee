"""``results/pretraining_data/{vocab}.json``: the record of a tokenised corpus (``corpus.json``
beside it), written by its job (``vocab.rules.tokenize_corpus``) and read by the models
trained on it, which take their sequence length from it, not from the config again
(docs/outputs.md)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from biocompact.records.base import (
    field_names,
    field_values,
    read_record,
    refuse_unknown_keys,
    written_fields,
)


@dataclass(frozen=True, kw_only=True)
class TokenizedCorpusRecord:
    """The settings the corpus was packed with (``vocab.settings.CorpusTokenization``'s:
    its sequences' length, the share of documents held out, the packing) and the sequences
    of each split."""

    max_seq_length: int
    heldout_fraction: float
    packing: str
    sequences: dict[str, int]  # split -> sequences

    def as_record(self) -> dict[str, Any]:
        """The record as the file holds it."""
        return written_fields(self)

    @classmethod
    def from_record(cls, data: Mapping[str, Any]) -> TokenizedCorpusRecord:
        """The record of the file's content; a key it does not write raises a ValueError."""
        refuse_unknown_keys(data, field_names(cls), "tokenised corpus record")
        return cls(**field_values(cls, data))

    @classmethod
    def read(cls, path: str | os.PathLike) -> TokenizedCorpusRecord:
        """The record in ``path``; a malformed one raises a ValueError naming the file."""
        return read_record(path, cls.from_record, "tokenised corpus record")
