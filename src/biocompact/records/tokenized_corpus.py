"""``results/pretraining_data/{vocab}.json``: the record of a tokenised corpus (``corpus.json``
beside it), written by its job (``vocab.rules.tokenize_corpus``) and read by the models
trained on it, which take their sequence length from it, not from the config again
(docs/outputs.md)."""

from __future__ import annotations

from dataclasses import dataclass

from biocompact.records.base import RecordFile


@dataclass(frozen=True, kw_only=True)
class TokenizedCorpusRecord(RecordFile):
    """The settings the corpus was packed with (``vocab.settings.CorpusTokenization``'s:
    its sequences' length, the share of documents held out, the packing) and the sequences
    of each split."""

    FILE = "tokenised corpus record"
    RECORD = "tokenised corpus record"

    max_seq_length: int
    heldout_fraction: float
    packing: str
    sequences: dict[str, int]  # split -> sequences
