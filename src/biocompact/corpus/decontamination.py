"""Decontamination: the dev and test text of the fine-tuning tasks kept out of the
pretraining text (and out of task distillation's transfer sets).

A pretraining document is removed when it holds the PMID of an evaluation example or shares
an n-gram of ``ngram`` words (13 by default) with the text of one, as in the decontamination
of Brown et al. 2020 ("Language Models are Few-Shot Learners", appendix C). Text is
normalised before it is cut into words: NFKC, lower-cased, a word is a run of letters and
digits (punctuation and whitespace only separate words). An n-gram never spans an entity
mask (``@GENE$``) or two documents, but does span sentences, so a test sentence that the
corpus splits differently still matches.

Only hashes of the evaluation n-grams are kept. Each word is hashed with xxHash (XXH3, 64
bits) and an n-gram's hash is ``sum_j h(w_j) * M**(n-1-j) mod 2**64`` (``M`` odd), computed
with NumPy for every window of a batch of documents at once: less than half the CPU time of
xxHash over each n-gram's string, one Python call per window (``benchmarks/data_scale.py``
prints both). Two different n-grams share a hash with
probability about 2**-64: over all of PubMed (about 5e9 n-grams) against a million
evaluation n-grams, about 3e-4 false matches are expected. A corpus word that is not a word
of the evaluation text cannot be part of a matching n-gram: it breaks windows like a mask.
"""

from __future__ import annotations

import gzip
import itertools
import json
import logging
import os
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Final, Literal

import numpy as np
import xxhash
from pydantic import Field

from biocompact.corpus.evaluation_text import (
    EvaluationExample,
    EvaluationSplit,
    evaluation_splits,
    normalise_pmid,
)
from biocompact.corpus.textshards import Document, iter_documents
from biocompact.entries import ENTRY, parse_record
from biocompact.files.atomic import atomic_open, write_json
from biocompact.records.base import record_data
from biocompact.records.contamination import (
    CheckedSplit,
    ContaminationRecord,
    CorpusTotals,
    DocumentCounts,
    Matches,
    ShardMatches,
    ShardTotals,
    SplitContamination,
    SplitMatchCounts,
)
from biocompact.schema_fields import UNIQUE_ITEMS, one_of
from biocompact.taskfiles.settings import FinetuningTask

LOG = logging.getLogger(__name__)

NGRAM = 13
AUTO: Final = "auto"
WORD = re.compile(r"[^\W_]+")
MASK = re.compile(r"@[A-Za-z][\w-]*\$")  # entity masks of relation datasets: @GENE$, @CHEM-GENE$
MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)  # odd: every word's hash counts at every position
BATCH_DOCUMENTS = 2_000  # documents scanned at once (numpy arrays of about 1 MB)
GZIP_LEVEL = 6  # zlib's default (gzip.open's 9: slower, its files hardly smaller)


@dataclass(frozen=True)
class DecontaminationSettings:
    """evaluation text kept out of the pretraining text and the transfer sets: a document (or
    transfer example) sharing a PMID or a normalised n-gram with the dev or test text of
    `tasks` is removed (docs/corpus.md)"""

    __pydantic_config__ = ENTRY
    SECTION = "decontamination"

    corpus: Annotated[bool | Literal["auto"], Field(json_schema_extra=one_of)] = AUTO
    """remove such documents from the sentence shards before the vocabulary and tokenising
    jobs, and write results/corpus/contamination.json; auto: when the corpus has PubMed or
    PMC files"""
    transfer_sets: bool = True
    """drop the transfer examples of task distillation that share an n-gram or PMID with a
    test set of `tasks`, counted in the transfer set's record"""
    ngram: Annotated[int, Field(ge=1)] = NGRAM
    """words per n-gram (13: Brown et al. 2020); lower-cased, punctuation and whitespace only
    separate words"""
    tasks: Annotated[tuple[str, ...], UNIQUE_ITEMS] | None = None
    """the tasks of finetuning.tasks whose dev and test text is checked; null: all of them"""

    def checked_tasks(self, configured: Sequence[str]) -> list[str]:
        """The tasks whose dev and test text is checked; a name not in ``configured`` (the
        tasks of ``finetuning.tasks``) is an error naming the key."""
        if self.tasks is None:
            return list(configured)
        unknown = [task for task in self.tasks if task not in configured]
        if unknown:
            raise ValueError(
                f"config: decontamination.tasks names {unknown}, which are not in "
                f"finetuning.tasks {list(configured)}"
            )
        return list(self.tasks)

    def corpus_on(self, from_pubmed_or_pmc: bool) -> bool:
        """Whether the pretraining text is decontaminated (``auto``: when it comes from
        PubMed or PMC, whose abstracts the biomedical benchmarks quote)."""
        return from_pubmed_or_pmc if self.corpus == AUTO else bool(self.corpus)


def words(text: str) -> list[str]:
    """The normalised words of ``text``: NFKC, lower-cased, runs of letters and digits."""
    return WORD.findall(unicodedata.normalize("NFKC", text).lower())


def word_hash(word: str) -> int:
    """The 64-bit hash of a normalised word (never 0, which breaks windows)."""
    return xxhash.xxh3_64_intdigest(word.encode()) or 1


def text_word_hashes(text: str, table: Mapping[str, int]) -> list[int]:
    """The hash of each word of ``text`` from ``table`` (0 for a word it lacks), and a 0 at
    each entity mask."""
    hashes: list[int] = []
    for number, piece in enumerate(MASK.split(text)):
        if number:
            hashes.append(0)
        hashes += [table.get(word, 0) for word in words(piece)]
    return hashes


def window_hashes(word_hashes: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(first position, hash) of every window of ``n`` consecutive non-zero word hashes."""
    count = len(word_hashes) - n + 1
    if count <= 0:
        return np.zeros(0, np.int64), np.zeros(0, np.uint64)
    breaks = np.concatenate(([0], np.cumsum(word_hashes == 0)))
    starts = np.flatnonzero(breaks[n:] == breaks[:count])
    hashes = word_hashes[:count].copy()
    for offset in range(1, n):
        hashes *= MULTIPLIER
        hashes += word_hashes[offset : offset + count]
    return starts, hashes[starts]


def text_ngram_hashes(texts: Iterable[str], n: int, table: Mapping[str, int]) -> np.ndarray:
    """The distinct n-gram hashes of ``texts``, words hashed by ``table`` (no n-gram spans
    two texts)."""
    flat: list[int] = []
    for text in texts:
        flat += text_word_hashes(text, table)
        flat.append(0)
    _, hashes = window_hashes(np.array(flat, dtype=np.uint64), n)
    return np.unique(hashes)


def _pmid_number(pmid: str) -> int | None:
    normalised = normalise_pmid(pmid) if pmid else None
    return int(normalised) if normalised else None


def _rows_by_key(keys: np.ndarray, splits: np.ndarray, examples: np.ndarray) -> tuple:
    """Rows (key, split, example), given as three columns, sorted by key."""
    order = np.argsort(keys, kind="stable")
    return keys[order], splits[order].astype(np.int32), examples[order].astype(np.int32)


@dataclass
class EvaluationIndex:
    """The evaluation n-grams (hashes) and PMIDs of every checked split, each row with the
    split and example it comes from; ``splits`` describes the splits (their task, files and
    example counts)."""

    ngram: int
    splits: list[CheckedSplit]
    vocabulary: list[str]
    hashes: np.ndarray
    hash_splits: np.ndarray
    hash_examples: np.ndarray
    pmids: np.ndarray
    pmid_splits: np.ndarray
    pmid_examples: np.ndarray
    _word_hashes: dict[str, int] = field(init=False, repr=False)
    _distinct: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._word_hashes = {word: word_hash(word) for word in self.vocabulary}
        self._distinct = np.unique(self.hashes)

    @classmethod
    def build(cls, splits: Sequence[EvaluationSplit], ngram: int = NGRAM) -> EvaluationIndex:
        """The index of ``splits``' examples, their n-grams of ``ngram`` words."""
        if ngram < 1:
            raise ValueError(f"decontamination.ngram must be at least 1, got {ngram}")
        vocabulary = sorted(
            {
                word
                for split in splits
                for example in split.examples
                for text in example.texts
                for word in words(text)
            }
        )
        table = {word: word_hash(word) for word in vocabulary}
        keys, key_splits, key_examples = [], [], []
        pmid_rows: list[tuple[int, int, int]] = []
        meta = []
        for number, split in enumerate(splits):
            under, with_pmid, unchecked = 0, 0, 0
            for index, example in enumerate(split.examples):
                hashes = text_ngram_hashes(example.texts, ngram, table)
                under += not len(hashes)
                keys.append(hashes)
                key_splits.append(number)
                key_examples.append(index)
                numbers = {n for pmid in example.pmids if (n := _pmid_number(pmid)) is not None}
                with_pmid += bool(numbers)
                unchecked += not len(hashes) and not numbers
                pmid_rows += [(pmid, number, index) for pmid in sorted(numbers)]
            meta.append(
                CheckedSplit(
                    task=split.task,
                    split=split.split,
                    family=split.family,
                    files=list(split.files),
                    examples=len(split.examples),
                    examples_under_ngram=under,
                    examples_with_pmid=with_pmid,
                    examples_unchecked=unchecked,
                )
            )
        lengths = [len(key) for key in keys]
        hash_rows = _rows_by_key(
            np.concatenate(keys) if keys else np.zeros(0, np.uint64),
            np.repeat(np.array(key_splits, np.int32), lengths),
            np.repeat(np.array(key_examples, np.int32), lengths),
        )
        pmid_columns = np.array(pmid_rows, np.int64).reshape(-1, 3)
        pmid_rows_sorted = _rows_by_key(*pmid_columns.T)
        return cls(ngram, meta, vocabulary, *hash_rows, *pmid_rows_sorted)

    def save(self, path: str | os.PathLike) -> None:
        """Write the index as one ``.npz`` file (atomically)."""
        meta = {"ngram": self.ngram, "splits": [record_data(split) for split in self.splits]}
        with atomic_open(path, "wb") as handle:
            np.savez(
                handle,
                meta=np.frombuffer(json.dumps(meta).encode(), np.uint8),
                vocabulary=np.frombuffer("\n".join(self.vocabulary).encode(), np.uint8),
                hashes=self.hashes,
                hash_splits=self.hash_splits,
                hash_examples=self.hash_examples,
                pmids=self.pmids,
                pmid_splits=self.pmid_splits,
                pmid_examples=self.pmid_examples,
            )

    @classmethod
    def load(cls, path: str | os.PathLike) -> EvaluationIndex:
        """The index written by ``save``."""
        with np.load(path) as arrays:
            meta = json.loads(arrays["meta"].tobytes())
            vocabulary = arrays["vocabulary"].tobytes().decode()
            return cls(
                meta["ngram"],
                [parse_record(CheckedSplit, split) for split in meta["splits"]],
                vocabulary.split("\n") if vocabulary else [],
                *(
                    arrays[name]
                    for name in (
                        "hashes",
                        "hash_splits",
                        "hash_examples",
                        "pmids",
                        "pmid_splits",
                        "pmid_examples",
                    )
                ),
            )

    @property
    def word_hashes(self) -> dict[str, int]:
        """The hash of each word of the evaluation text (a corpus word not in it cannot be
        part of a matching n-gram: ``text_word_hashes`` gives it 0, a break)."""
        return self._word_hashes

    def contains(self, hashes: np.ndarray) -> np.ndarray:
        """Whether each of ``hashes`` is an evaluation n-gram."""
        if not len(self._distinct):
            return np.zeros(len(hashes), bool)
        positions = np.minimum(np.searchsorted(self._distinct, hashes), len(self._distinct) - 1)
        return self._distinct[positions] == hashes

    def hash_owners(self, value: int) -> set[int]:
        """The splits (indices into ``splits``) that hold n-gram hash ``value``."""
        key = np.uint64(value)
        low = np.searchsorted(self.hashes, key, side="left")
        high = np.searchsorted(self.hashes, key, side="right")
        return set(self.hash_splits[low:high].tolist())

    def pmid_owners(self, pmid: int) -> set[int]:
        """The splits (indices into ``splits``) with an example of PMID ``pmid``."""
        low = np.searchsorted(self.pmids, pmid, side="left")
        high = np.searchsorted(self.pmids, pmid, side="right")
        return set(self.pmid_splits[low:high].tolist())

    def example_overlaps(self, example: EvaluationExample) -> set[int]:
        """The splits that share an n-gram or a PMID with ``example`` (a transfer example)."""
        hashes = text_ngram_hashes(example.texts, self.ngram, self._word_hashes)
        owners = set().union(
            *(self.hash_owners(int(value)) for value in hashes[self.contains(hashes)])
        )
        numbers = {n for pmid in example.pmids if (n := _pmid_number(pmid)) is not None}
        return owners.union(*(self.pmid_owners(number) for number in numbers))

    def matched_examples(self, hashes: Iterable[int], pmids: Iterable[int]) -> list[dict[str, int]]:
        """Per split, how many of its examples hold one of the matched n-gram ``hashes``
        (``ngram``) and one of the matched ``pmids`` (``pmid``)."""
        found_hashes = np.isin(self.hashes, np.array(sorted(hashes), np.uint64))
        found_pmids = np.isin(self.pmids, np.array(sorted(pmids), np.int64))
        counts = []
        for number in range(len(self.splits)):
            counts.append(
                {
                    "ngram": len(
                        np.unique(self.hash_examples[found_hashes & (self.hash_splits == number)])
                    ),
                    "pmid": len(
                        np.unique(self.pmid_examples[found_pmids & (self.pmid_splits == number)])
                    ),
                }
            )
        return counts


@dataclass
class DocumentMatch:
    """What one pretraining document matched: per split, the sentences (positions in the
    document) holding part of a matched n-gram; the splits of its PMID; the n-gram hashes."""

    ngram_sentences: dict[int, set[int]] = field(default_factory=dict)
    pmid_splits: set[int] = field(default_factory=set)
    hashes: set[int] = field(default_factory=set)


def _pmid_numbers(pmids: Sequence[str]) -> np.ndarray:
    """The PMIDs as numbers, -1 where a document has none."""
    numbers = (_pmid_number(pmid) for pmid in pmids)
    return np.array([-1 if number is None else number for number in numbers], np.int64)


def scan_documents(
    index: EvaluationIndex, documents: Sequence[Document], pmids: Sequence[str]
) -> list[DocumentMatch | None]:
    """For each document (its sentences; its PMID, "" for none), what it matched (None:
    nothing). The windows of all documents are hashed at once."""
    flat: list[int] = []
    sentence_starts: list[int] = []
    document_starts: list[int] = []  # the first sentence of each document
    for document in documents:
        document_starts.append(len(sentence_starts))
        for sentence in document:
            sentence_starts.append(len(flat))
            flat += text_word_hashes(sentence, index.word_hashes)
        flat.append(0)
    starts, hashes = window_hashes(np.fromiter(flat, np.uint64, len(flat)), index.ngram)
    found = index.contains(hashes)
    first = np.searchsorted(sentence_starts, starts[found], side="right") - 1
    last = np.searchsorted(sentence_starts, starts[found] + index.ngram - 1, side="right") - 1
    owner = np.searchsorted(document_starts, first, side="right") - 1
    matches: list[DocumentMatch | None] = [None] * len(documents)
    for number, start, end, value in zip(
        owner.tolist(), first.tolist(), last.tolist(), hashes[found].tolist()
    ):
        match = matches[number] = matches[number] or DocumentMatch()
        match.hashes.add(value)
        offset = document_starts[number]
        for split in index.hash_owners(value):
            match.ngram_sentences.setdefault(split, set()).update(
                range(start - offset, end - offset + 1)
            )
    numbers = _pmid_numbers(pmids)
    for number in np.flatnonzero(np.isin(numbers, index.pmids)).tolist():
        match = matches[number] = matches[number] or DocumentMatch()
        match.pmid_splits = index.pmid_owners(int(numbers[number]))
    return matches


class ShardCounts:
    """The counts of one shard's decontamination: documents and sentences read and removed,
    and per split those matched by PMID and by n-gram; the matched hashes and PMIDs."""

    def __init__(self, index: EvaluationIndex) -> None:
        self.index = index
        self.totals: Counter[str] = Counter()
        self.per_split: list[Counter[str]] = [Counter() for _ in index.splits]
        self.hashes: set[int] = set()
        self.pmids: set[int] = set()

    def add(self, document: Document, pmid: str, match: DocumentMatch | None) -> None:
        """Count one document and what it matched (None: nothing, it is kept)."""
        self.totals.update(documents=1, sentences=len(document))
        if match is None:
            return
        self.totals.update(
            documents_removed=1,
            sentences_removed=len(document),
            documents_matched_by_pmid=bool(match.pmid_splits),
            documents_matched_by_ngram=bool(match.ngram_sentences),
        )
        self.hashes |= match.hashes
        if match.pmid_splits:
            number = _pmid_number(pmid)
            assert number is not None  # matched by its PMID
            self.pmids.add(number)
        for split in match.pmid_splits:
            self.per_split[split].update(pmid_documents=1, pmid_sentences=len(document))
        for split, sentences in match.ngram_sentences.items():
            self.per_split[split].update(ngram_documents=1, ngram_sentences=len(sentences))
        for split in match.pmid_splits | set(match.ngram_sentences):
            self.per_split[split]["documents_removed"] += 1

    def record(self, shard: str) -> ShardMatches:
        """The shard's record (its ``.matches.json``)."""
        return ShardMatches(
            shard=shard,
            counts=DocumentCounts(**{key: self.totals[key] for key in DocumentCounts.names()}),
            splits=[
                SplitMatchCounts(
                    task=meta.task,
                    split=meta.split,
                    pmid_documents=counts["pmid_documents"],
                    pmid_sentences=counts["pmid_sentences"],
                    ngram_documents=counts["ngram_documents"],
                    ngram_sentences=counts["ngram_sentences"],
                    documents_removed=counts["documents_removed"],
                )
                for meta, counts in zip(self.index.splits, self.per_split)
            ],
            matched_ngrams=[f"{value:016x}" for value in sorted(self.hashes)],
            matched_pmids=sorted(self.pmids),
        )


def _lines(path: str | os.PathLike) -> Iterator[str]:
    """The lines of a text file (gzipped when it ends in .gz), without their newline."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            yield line.rstrip("\n")


def _batches(
    sentences: str | os.PathLike, pmids: str | os.PathLike | None
) -> Iterator[tuple[list[Document], list[str]]]:
    """The shard's documents with their PMIDs (the sentence job's ``pmids`` file, one a line
    in shard order; "" without the file), ``BATCH_DOCUMENTS`` at a time."""
    ids = _lines(pmids) if pmids is not None else itertools.repeat("")
    documents: list[Document] = []
    numbers: list[str] = []
    for document in iter_documents([sentences]):
        pmid = next(ids, None)
        if pmid is None:
            raise ValueError(f"{pmids}: fewer PMIDs than the documents of {sentences}")
        documents.append(document)
        numbers.append(pmid)
        if len(documents) == BATCH_DOCUMENTS:
            yield documents, numbers
            documents, numbers = [], []
    if pmids is not None and next(ids, None) is not None:
        raise ValueError(f"{pmids}: more PMIDs than the documents of {sentences}")
    if documents:
        yield documents, numbers


def decontaminate_shard(
    index: EvaluationIndex,
    sentences: str | os.PathLike,
    out: str | os.PathLike,
    matches: str | os.PathLike,
    pmids: str | os.PathLike | None = None,
) -> ShardMatches:
    """Write the documents of shard ``sentences`` that match nothing of ``index`` to
    ``out`` (same format, same order) and the shard's counts to ``matches``; return them."""
    counts = ShardCounts(index)
    options: dict[str, Any] = {"compresslevel": GZIP_LEVEL} if str(out).endswith(".gz") else {}
    with atomic_open(out, **options) as handle:
        for batch, batch_pmids in _batches(sentences, pmids):
            for document, pmid, match in zip(
                batch, batch_pmids, scan_documents(index, batch, batch_pmids)
            ):
                counts.add(document, pmid, match)
                if match is None:
                    handle.write("\n".join(document) + "\n\n")
    record = counts.record(str(sentences))
    write_json(matches, record_data(record))
    LOG.info(
        "%s: %d of %d documents removed",
        sentences,
        record.counts.documents_removed,
        record.counts.documents,
    )
    return record


def contamination_summary(
    index: EvaluationIndex, records: Sequence[ShardMatches]
) -> ContaminationRecord:
    """The contamination of the whole corpus from its shards' ``records``: per task and
    split the corpus documents and sentences matched by PMID and by n-gram, the split's
    examples found in the corpus, and the documents removed; each shard's totals."""
    hashes = {int(value, 16) for record in records for value in record.matched_ngrams}
    pmids = {pmid for record in records for pmid in record.matched_pmids}
    examples = index.matched_examples(hashes, pmids)
    splits = []
    for number, meta in enumerate(index.splits):
        matched = [record.splits[number] for record in records]
        splits.append(
            SplitContamination(
                checked=meta,
                pmid=Matches(
                    documents=sum(counts.pmid_documents for counts in matched),
                    sentences=sum(counts.pmid_sentences for counts in matched),
                    examples=examples[number]["pmid"],
                ),
                ngram=Matches(
                    documents=sum(counts.ngram_documents for counts in matched),
                    sentences=sum(counts.ngram_sentences for counts in matched),
                    examples=examples[number]["ngram"],
                ),
                documents_removed=sum(counts.documents_removed for counts in matched),
            )
        )
    shards = [ShardTotals(shard=record.shard, counts=record.counts) for record in records]
    return ContaminationRecord(
        ngram=index.ngram,
        tasks=list(dict.fromkeys(meta.task for meta in index.splits)),
        corpus=CorpusTotals.of(shards),
        splits=splits,
        shards=shards,
    )


def build_evaluation_index(
    tasks: Iterable[FinetuningTask], ngram: int, out: str | os.PathLike
) -> EvaluationIndex:
    """Collect the dev and test text of ``tasks`` and write its index."""
    splits = [split for task in tasks for split in evaluation_splits(task)]
    index = EvaluationIndex.build(splits, ngram)
    index.save(out)
    for meta in index.splits:
        LOG.info("%s %s: %d examples", meta.task, meta.split, meta.examples)
    return index
