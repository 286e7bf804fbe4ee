"""``results/pretraining_data/{vocab}.json``: the record of a tokenised corpus (``corpus.json``
beside it), written by its job (``vocab.rules.tokenize_corpus``) and read by the models
trained on it, which take their sequence length from it, not from the config again
(docs/outputs.md)."""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass

from biocompact.entries import parse_record
from biocompact.records.base import read_record


@dataclass(frozen=True, kw_only=True)
class TokenizedCorpusRecord:
    """The settings the corpus was packed with (``vocab.settings.CorpusTokenization``'s:
    its sequences' length, the share of documents held out, the packing) and the sequences
    of each split."""

    RECORD = "tokenised corpus record"

    max_seq_length: int
    heldout_fraction: float
    packing: str
    sequences: dict[str, int]  # split -> sequences

    @classmethod
    def read(cls, path: str | os.PathLike) -> TokenizedCorpusRecord:
        """The record in ``path``; a malformed one raises a ValueError naming the file."""
        return read_record(path, functools.partial(parse_record, cls), "tokenised corpus record")
