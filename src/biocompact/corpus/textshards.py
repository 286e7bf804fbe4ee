"""Reading the pretraining text format: one sentence a line, a blank line between documents.

Shared by the vocabulary, pretraining-data and distillation stages. Held-out documents
are chosen by a stable hash of their text, so every stage agrees on the split without
reading each other's outputs.
"""

from __future__ import annotations

import gzip
import os
import zlib
from collections.abc import Iterable, Iterator

Document = list[str]


def iter_documents(paths: Iterable[str | os.PathLike]) -> Iterator[Document]:
    """Yield each document (its list of sentences) from the given shards, in order."""
    for path in paths:
        opener = gzip.open if str(path).endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as handle:
            document: Document = []
            for line in handle:
                sentence = line.strip()
                if sentence:
                    document.append(sentence)
                elif document:
                    yield document
                    document = []
            if document:
                yield document


def _in_fraction(document: Document, fraction: float, salt: bytes) -> bool:
    """True for a stable pseudo-random ``fraction`` of documents (hash of salt + first sentence)."""
    if fraction <= 0 or not document:
        return False
    bucket = zlib.crc32(salt + document[0].encode("utf-8")) % 10_000
    return bucket < fraction * 10_000


def is_heldout(document: Document, fraction: float) -> bool:
    """True for a stable pseudo-random ``fraction`` of documents (hash of the first sentence)."""
    return _in_fraction(document, fraction, b"")


def in_sample(document: Document, fraction: float) -> bool:
    """True for a stable ``fraction`` of documents, chosen independently of the held-out split."""
    return fraction >= 1 or _in_fraction(document, fraction, b"sample:")


def iter_sentences(
    paths: Iterable[str | os.PathLike],
    heldout_fraction: float,
    heldout: bool,
    sample_fraction: float = 1.0,
) -> Iterator[str]:
    """Sentences of the training (``heldout=False``) or held-out documents, in a ``sample_fraction`` of them."""
    for document in iter_documents(paths):
        if is_heldout(document, heldout_fraction) == heldout and in_sample(
            document, sample_fraction
        ):
            yield from document
