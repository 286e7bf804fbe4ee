"""Tokenise the sentence shards once and pack them into pretraining sequences (Arrow on disk).

Three packings (``pretraining_data.packing``):

* ``full``: RoBERTa's FULL-SENTENCES (Liu et al. 2019, "RoBERTa: A Robustly
  Optimized BERT Pretraining Approach", section 4.2): the documents' sentences flow one after
  another into sequences of ``max_seq_length`` tokens. Between two documents go ``[SEP]``
  (RoBERTa's extra separator) and ``[CLS]``, so that each document reads
  ``[CLS] ... [SEP]``, as a sequence of its own does; training keeps the documents of a
  sequence apart: each token attends only within its own document, and position ids
  restart at every document (``biocompact.models.documents``), so each document gets the
  hidden states it would get alone. A sequence is cut only between two words (a word longer
  than a whole sequence excepted), never inside one, so whole-word masking sees every word
  whole (``run_mlm.py``'s ``group_texts`` cuts anywhere); a sequence thus ends short by less
  than a word, and only the last sequence of a stream is shorter still.
* ``document``: BERT's document-aware packing: consecutive sentences of one
  document fill a sequence, and no sequence mixes documents (the last one of every document
  is short).
* ``best_fit`` (default): ``document``'s sequences, whole (whole sentences of one document),
  several to a sequence by best-fit decreasing (the longest first, each into the sequence
  it fills the most; Ding et al. 2024, "Fewer Truncations Improve Language Modeling"),
  ``[SEP] [CLS]`` between two and each attending only to itself with its own positions, as
  in ``full`` (Krell et al. 2021, "Efficient Sequence Packing without Cross-contamination"):
  every one gets the hidden states it gets with ``document``, in fewer, fuller sequences.

Each sequence keeps ``word_ids`` (the word of every token, -1 for special tokens) for
whole-word masking, ``document_starts`` (the positions where a document after its first
begins: its ``[CLS]``, after the ``[SEP]`` that closes the one before; empty with
``document`` packing) for the attention mask, and ``document``/``last_document`` (the corpus indices of
its first and last document) for next-sentence prediction's random other document.
Documents held out for evaluation never share a sequence with training documents.

Columns are stored in the smallest integer type that holds them (``smallest_integer_type``):
token ids below the vocabulary's size (int16 up to 32,768 tokens, uint16 up to 65,536), word ids from -1 to
below ``max_seq_length`` (int8 up to 128 tokens), document starts below ``max_seq_length``,
document indices below the corpus's document count. Reading the shards (a group of shards each) and tokenising and packing run
in ``num_proc`` processes; the splits are taken without a filter pass and written by this
process (``save_to_disk``'s own processes need a manager process, which cannot start from a
Snakemake script). The read text and the packed corpus are kept in a scratch folder
(Snakemake's ``tmpdir`` in the workflow), the read text deleted once packed; the job's
transient disk is the text and the packed corpus, or the packed corpus twice (the scratch's
and the output), whichever is larger (``biocompact.vocab.disk``).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

import datasets
import numpy as np
from transformers import AutoTokenizer

from biocompact.corpus.textshards import is_heldout, iter_documents
from biocompact.files.atomic import atomic_path
from biocompact.vocab.settings import PACKINGS

Packed = tuple[list[int], list[int]]
# token ids, word ids, first and last document, where each document after the first starts
FullSequence = tuple[list[int], list[int], int, int, list[int]]
Sentence = tuple[list[int], list[int]]  # token ids, word ids (as the tokenizer numbers them)
MAP_BATCH_DOCUMENTS = 1000  # a full-packing stream ends (one short sequence) every this many
INTEGER_TYPES = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64")


def smallest_integer_type(low: int, high: int) -> str:
    """The Arrow integer type of fewest bytes that holds every value from ``low`` to ``high``."""
    for name in INTEGER_TYPES:
        info = np.iinfo(name)
        if info.min <= low and high <= info.max:
            return name
    raise ValueError(f"no integer type holds {low} to {high}")


def packed_features(vocab_size: int, max_seq_length: int, documents: int) -> datasets.Features:
    """The packed corpus's columns, each in the smallest integer type that holds it."""
    document = datasets.Value(smallest_integer_type(0, max(documents - 1, 0)))
    return datasets.Features(
        {
            "input_ids": datasets.Sequence(
                datasets.Value(smallest_integer_type(0, vocab_size - 1))
            ),
            "word_ids": datasets.Sequence(
                datasets.Value(smallest_integer_type(-1, max_seq_length - 1))
            ),
            "document_starts": datasets.Sequence(
                datasets.Value(smallest_integer_type(0, max_seq_length - 1))
            ),
            "document": document,
            "last_document": document,
            "heldout": datasets.Value("bool"),
        }
    )


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


class FullSequences:
    """Packs a stream of documents into sequences of ``max_tokens`` (less than a word short).

    Word ids are renumbered 0, 1, ... within each sequence. Between two documents go
    ``separator_id`` (closing the one before) and ``opener_id`` (opening the next, where it
    starts), both of word id -1 (never masked): each document after a sequence's first
    reads ``[CLS] ... [SEP]`` as a sequence of its own does. The pair never starts or ends a
    sequence.
    """

    def __init__(self, max_tokens: int, separator_id: int, opener_id: int):
        self.max_tokens = max_tokens
        self.boundary = [separator_id, opener_id]
        self.sequences: list[FullSequence] = []
        self._ids: list[int] = []
        self._words: list[int] = []
        self._documents: list[int] = []
        self._starts: list[int] = []
        self._next_word = 0

    def add_document(self, index: int, sentences: Sequence[Sentence]) -> None:
        sentences = [sentence for sentence in sentences if sentence[0]]
        if not sentences:
            return
        if self._ids:
            if len(self._ids) + len(self.boundary) + 1 > self.max_tokens:  # no room for a token
                self._flush()
            else:
                self._ids.extend(self.boundary)
                self._words.extend([-1] * len(self.boundary))
        for ids, words in sentences:
            self._add_sentence(index, ids, words)

    def finish(self) -> list[FullSequence]:
        """All sequences, the last (partial) one included; (ids, word ids, first document, last
        document, the positions where each document after the first starts: its opener)."""
        self._flush()
        return self.sequences

    def _add_sentence(self, document: int, ids: list[int], words: list[int]) -> None:
        while ids:
            room = self.max_tokens - len(self._ids)
            cut = len(ids) if len(ids) <= room else _word_start_at_or_before(words, room)
            if cut == 0:
                if self._ids:
                    self._flush()
                    continue
                cut = room  # a single word longer than a sequence
            if not self._documents or self._documents[-1] != document:
                if self._ids:  # after the separator and the opener
                    self._starts.append(len(self._ids) - 1)
                self._documents.append(document)
            first = words[0]
            self._ids.extend(ids[:cut])
            self._words.extend(self._next_word + word - first for word in words[:cut])
            self._next_word = self._words[-1] + 1
            ids, words = ids[cut:], words[cut:]
            if ids:
                self._flush()

    def _flush(self) -> None:
        if self._ids[-len(self.boundary) :] == self.boundary and self._words[-1] == -1:
            del self._ids[-len(self.boundary) :], self._words[-len(self.boundary) :]
        if self._ids:
            self.sequences.append(
                (self._ids, self._words, self._documents[0], self._documents[-1], self._starts)
            )
        self._ids, self._words, self._documents, self._starts, self._next_word = [], [], [], [], 0


def best_fit(
    rows: Sequence[tuple[list[int], list[int], int]], max_tokens: int, boundary: list[int]
) -> list[FullSequence]:
    """Put whole rows (token ids, word ids, document) into sequences of at most
    ``max_tokens``, ``boundary`` between two of them, by best-fit decreasing: the longest
    row first, each into the sequence it fills the most. Returns sequences as
    ``FullSequences`` does: word ids renumbered to stay apart, each row after the first
    starting at its ``boundary``'s last token."""
    room = max_tokens + len(boundary)  # every row costs its length and one boundary
    sequences: list[list[int]] = []  # row indices
    by_room: dict[int, list[int]] = {}  # tokens left -> sequences with that many
    for index in sorted(range(len(rows)), key=lambda i: -len(rows[i][0])):
        cost = len(rows[index][0]) + len(boundary)
        left = next((r for r in range(cost, room + 1) if by_room.get(r)), None)
        if left is None:
            target, left = len(sequences), room
            sequences.append([])
        else:
            target = by_room[left].pop()
        sequences[target].append(index)
        by_room.setdefault(left - cost, []).append(target)
    packed = []
    for members in sequences:
        ids: list[int] = []
        words: list[int] = []
        starts: list[int] = []
        for index in members:
            row_ids, row_words, _ = rows[index]
            if ids:
                ids.extend(boundary)
                words.extend([-1] * len(boundary))
                starts.append(len(ids) - 1)
            offset = max(words, default=-1) + 1
            ids.extend(row_ids)
            words.extend(offset + word for word in row_words)
        documents = [rows[index][2] for index in members]
        packed.append((ids, words, min(documents), max(documents), starts))
    return packed


def _word_start_at_or_before(words: list[int], limit: int) -> int:
    """The largest index <= ``limit`` where a new word starts (0 if none after the first)."""
    for index in range(min(limit, len(words) - 1), 0, -1):
        if words[index] != words[index - 1]:
            return index
    return 0


def _tokenize_and_pack(
    batch: dict, indices: list[int], tokenizer, max_seq_length: int, packing: str
) -> dict:
    names = ("input_ids", "word_ids", "document_starts", "document", "last_document", "heldout")
    columns: dict[str, list] = {name: [] for name in names}

    def add(
        ids: list[int], words: list[int], first: int, last: int, starts: list[int], held: bool
    ) -> None:
        columns["input_ids"].append([tokenizer.cls_token_id, *ids, tokenizer.sep_token_id])
        columns["word_ids"].append([-1, *words, -1])
        columns["document_starts"].append([start + 1 for start in starts])  # after [CLS]
        columns["document"].append(first)
        columns["last_document"].append(last)
        columns["heldout"].append(held)

    boundary = [tokenizer.sep_token_id, tokenizer.cls_token_id]
    streams = {held: FullSequences(max_seq_length - 2, *boundary) for held in (False, True)}
    rows: dict[bool, list] = {False: [], True: []}  # best_fit: document-packed sequences
    for sentences, held, index in zip(batch["sentences"], batch["heldout"], indices):
        encoding = tokenizer(sentences, add_special_tokens=False)
        tokenised = [
            (encoding["input_ids"][i], list(encoding.word_ids(i))) for i in range(len(sentences))
        ]
        if packing == "full":
            streams[held].add_document(index, tokenised)
            continue
        for ids, words in pack_document([s for s in tokenised if s[0]], max_seq_length - 2):
            if packing == "best_fit":
                rows[held].append((ids, words, index))
            else:
                add(ids, words, index, index, [], held)
    for held in (False, True):
        if packing == "full":
            sequences = streams[held].finish()
        elif packing == "best_fit":
            sequences = best_fit(rows[held], max_seq_length - 2, boundary)
        else:
            continue
        for ids, words, first, last, starts in sequences:
            add(ids, words, first, last, starts, held)
    return columns


def build_tokenized_corpus(
    shards: Sequence[str | os.PathLike],
    tokenizer_dir: str | os.PathLike,
    out_dir: str | os.PathLike,
    *,
    max_seq_length: int,
    heldout_fraction: float,
    num_proc: int = 1,
    packing: str = "best_fit",
    scratch_dir: str | os.PathLike | None = None,
) -> datasets.DatasetDict:
    """Write a ``DatasetDict`` with ``train`` and ``validation`` splits to ``out_dir``, the
    read text and the packed corpus kept meanwhile in a folder of ``scratch_dir`` (None: the
    system's temporary folder)."""
    if packing not in PACKINGS:
        raise ValueError(f"packing must be one of {PACKINGS}, got {packing!r}")
    tokenizer = AutoTokenizer.from_pretrained(tokenizer_dir)

    def documents(shards: list[str]):
        for document in iter_documents(shards):
            yield {"sentences": document, "heldout": is_heldout(document, heldout_fraction)}

    with tempfile.TemporaryDirectory(dir=scratch_dir, prefix="biocompact-tokenize-") as cache:
        # contiguous groups of shards, one per process: the documents keep their order
        raw = datasets.Dataset.from_generator(
            documents,
            gen_kwargs={"shards": [str(shard) for shard in shards]},
            num_proc=min(num_proc, len(shards)) if num_proc > 1 else None,
            cache_dir=cache,
        )
        if len(raw) == 0:
            raise ValueError(f"no documents in the sentence shards: {list(map(str, shards))}")
        packed = raw.map(
            _tokenize_and_pack,
            batched=True,
            with_indices=True,
            batch_size=MAP_BATCH_DOCUMENTS,
            num_proc=num_proc if num_proc > 1 else None,
            remove_columns=raw.column_names,
            features=packed_features(len(tokenizer), max_seq_length, len(raw)),
            fn_kwargs={
                "tokenizer": tokenizer,
                "max_seq_length": max_seq_length,
                "packing": packing,
            },
            desc="tokenise and pack",
        )
        # the text is packed: free its disk before the splits are written. A deleted file
        # keeps its disk while mapped, so the dataset that maps it goes first.
        text_files = [file["filename"] for file in raw.cache_files]
        del raw
        for file in text_files:
            Path(file).unlink()
        heldout = packed.data.column("heldout").to_numpy(zero_copy_only=False)
        splits = datasets.DatasetDict(
            train=packed.select(np.flatnonzero(~heldout)).remove_columns("heldout"),
            validation=packed.select(np.flatnonzero(heldout)).remove_columns("heldout"),
        )
        for name, split in splits.items():
            if len(split) == 0:
                raise ValueError(f"the {name} split is empty: adjust heldout_fraction or add text")
        # Nothing moves from the scratch, which may be another file system (a move there
        # would be a copy, seen half-done): save_to_disk writes the splits into
        # atomic_path's sibling of out_dir, renamed into place within the output's.
        with atomic_path(out_dir, is_dir=True) as folder:
            splits.save_to_disk(str(folder))
    return datasets.load_from_disk(str(out_dir))
