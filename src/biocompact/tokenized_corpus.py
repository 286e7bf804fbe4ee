"""Tokenise the sentence shards once and pack them into pretraining sequences (Arrow on disk).

BERT's document-aware packing: consecutive sentences of one document fill a sequence of
up to ``max_seq_length`` tokens (``[CLS] ... [SEP]``), so no padding is wasted inside a
document and no sequence mixes documents. Each sequence keeps ``word_ids`` (the word
of every token, -1 for special tokens) for whole-word masking and ``document`` (its
document's index in the corpus) for next-sentence prediction's random other document.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

import datasets
from transformers import AutoTokenizer

from biocompact.atomic import atomic_path
from biocompact.textshards import is_heldout, iter_documents

Packed = tuple[list[int], list[int]]


def pack_document(
    sentences: Sequence[tuple[list[int], list[int]]], max_tokens: int
) -> list[Packed]:
    """Greedily pack one document's tokenised sentences into sequences of <= ``max_tokens``.

    ``sentences`` holds (token ids, word ids) per sentence; word ids are renumbered to be
    unique within each packed sequence. A sentence longer than ``max_tokens`` is cut.
    """
    packed: list[Packed] = []
    ids: list[int] = []
    words: list[int] = []

    def flush() -> None:
        if ids:
            packed.append((ids.copy(), words.copy()))
            ids.clear()
            words.clear()

    for sentence_ids, sentence_words in sentences:
        for start in range(0, len(sentence_ids), max_tokens):
            piece_ids = sentence_ids[start : start + max_tokens]
            piece_words = sentence_words[start : start + max_tokens]
            if len(ids) + len(piece_ids) > max_tokens:
                flush()
            offset = words[-1] + 1 if words else 0
            first = piece_words[0] if piece_words else 0
            ids.extend(piece_ids)
            words.extend(offset + word - first for word in piece_words)
    flush()
    return packed


def _tokenize_and_pack(batch: dict, indices: list[int], tokenizer, max_seq_length: int) -> dict:
    input_ids: list[list[int]] = []
    word_ids: list[list[int]] = []
    document: list[int] = []
    heldout: list[bool] = []
    for sentences, held, index in zip(batch["sentences"], batch["heldout"], indices):
        encoding = tokenizer(sentences, add_special_tokens=False)
        tokenised = [
            (encoding["input_ids"][i], list(encoding.word_ids(i)))
            for i in range(len(sentences))
        ]
        for ids, words in pack_document([s for s in tokenised if s[0]], max_seq_length - 2):
            input_ids.append([tokenizer.cls_token_id, *ids, tokenizer.sep_token_id])
            word_ids.append([-1, *words, -1])
            document.append(index)
            heldout.append(held)
    return {"input_ids": input_ids, "word_ids": word_ids, "document": document, "heldout": heldout}


def build_tokenized_corpus(
    shards: Sequence[str | os.PathLike],
    tokenizer_dir: str | os.PathLike,
    out_dir: str | os.PathLike,
    max_seq_length: int,
    heldout_fraction: float,
    num_proc: int = 1,
) -> datasets.DatasetDict:
    """Write a ``DatasetDict`` with ``train`` and ``validation`` splits to ``out_dir``."""
    tokenizer = AutoTokenizer.from_pretrained(tokenizer_dir)

    def documents():
        for document in iter_documents(shards):
            yield {"sentences": document, "heldout": is_heldout(document, heldout_fraction)}

    with tempfile.TemporaryDirectory(dir=Path(out_dir).parent, prefix=".cache-") as cache:
        raw = datasets.Dataset.from_generator(documents, cache_dir=cache)
        if len(raw) == 0:
            raise ValueError(f"no documents in the sentence shards: {list(map(str, shards))}")
        packed = raw.map(
            _tokenize_and_pack,
            batched=True,
            with_indices=True,
            batch_size=256,
            num_proc=num_proc if num_proc > 1 else None,
            remove_columns=raw.column_names,
            fn_kwargs={"tokenizer": tokenizer, "max_seq_length": max_seq_length},
            desc="tokenise and pack",
        )
        splits = datasets.DatasetDict(
            train=packed.filter(lambda row: not row["heldout"]).remove_columns("heldout"),
            validation=packed.filter(lambda row: row["heldout"]).remove_columns("heldout"),
        )
        for name, split in splits.items():
            if len(split) == 0:
                raise ValueError(f"the {name} split is empty: adjust heldout_fraction or add text")
        with atomic_path(out_dir, is_dir=True) as folder:
            splits.save_to_disk(str(folder))
    return splits
