"""``contamination.json``: the record of the pretraining corpus's decontamination, written by
the corpus stage (``corpus.decontamination.contamination_summary``) and read by the model
cards and the report (docs/outputs.md)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from biocompact.entries import FLAT, parse_record
from biocompact.records.base import read_record, record_data, when_set


@dataclass(frozen=True, kw_only=True)
class DocumentCounts:
    """The documents and sentences read and removed, and the documents matched by PMID and
    by n-gram (a document may be both), of one shard or of the whole corpus."""

    documents: int
    sentences: int
    documents_removed: int
    sentences_removed: int
    documents_matched_by_pmid: int
    documents_matched_by_ngram: int

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """The counts' names in their order."""
        return tuple(item.name for item in fields(cls))

    @classmethod
    def total(cls, counts: Iterable[DocumentCounts]) -> DocumentCounts:
        """The sum of ``counts``."""
        items = list(counts)
        return cls(**{name: sum(getattr(item, name) for item in items) for name in cls.names()})


@dataclass(frozen=True, kw_only=True)
class ShardTotals:
    """A shard's ``counts``, the shard named by its sentence file."""

    RECORD = "shard's totals"

    shard: str
    counts: DocumentCounts = field(metadata=FLAT)


@dataclass(frozen=True, kw_only=True)
class CheckedSplit:
    """A dev or test split whose text was checked: its task, family and files, its examples,
    those under the n-gram length and those with a PMID, and ``examples_unchecked``: those
    under the n-gram length without a PMID, which nothing can match (None: a record written
    before they were counted)."""

    task: str
    split: str
    family: str
    files: list[str]
    examples: int
    examples_under_ngram: int
    examples_with_pmid: int
    examples_unchecked: int | None = when_set()


@dataclass(frozen=True, kw_only=True)
class Matches:
    """What one kind of match (by PMID, by n-gram) found of a split: the corpus documents
    and sentences matched and the split's examples found in the corpus."""

    RECORD = "{key} matches"  # pmid or ngram

    documents: int
    sentences: int
    examples: int


@dataclass(frozen=True, kw_only=True)
class SplitContamination:
    """A checked split's matches by PMID and by n-gram and the corpus documents removed on
    its account (a document matching several splits counts in each)."""

    RECORD = "split's record"

    checked: CheckedSplit = field(metadata=FLAT)
    pmid: Matches
    ngram: Matches
    documents_removed: int


@dataclass(frozen=True, kw_only=True)
class ContaminationRecord:
    """``contamination.json``: the corpus's decontamination against the dev and test text of
    ``tasks`` by PMID and by n-grams of ``ngram`` words, per checked split and per shard; the
    corpus's totals (``corpus``, written with the number of shards) are the shards'
    summed."""

    RECORD = "contamination record"

    ngram: int
    tasks: list[str]
    splits: list[SplitContamination]
    shards: list[ShardTotals]

    @property
    def corpus(self) -> DocumentCounts:
        """The whole corpus's counts."""
        return DocumentCounts.total(shard.counts for shard in self.shards)

    def as_record(self) -> dict[str, Any]:
        """The record as ``contamination.json`` holds it: its fields (``record_data``) with
        the corpus's totals, which are no field, after ``tasks``."""
        record = record_data(self)
        corpus = {"shards": len(self.shards), **record_data(self.corpus)}
        return {
            "ngram": record.pop("ngram"),
            "tasks": record.pop("tasks"),
            "corpus": corpus,
            **record,
        }

    @classmethod
    def from_record(cls, data: Mapping[str, Any]) -> ContaminationRecord:
        """The record of ``contamination.json``'s content (``parse_record``'s but for the
        corpus totals); corpus totals that are not its shards' summed raise a ValueError."""
        if "corpus" not in data:
            raise ValueError("it lacks ['corpus']")
        record = parse_record(cls, {key: value for key, value in data.items() if key != "corpus"})
        summed = record.as_record()["corpus"]
        if data["corpus"] != summed:
            raise ValueError(
                f"its corpus totals {data['corpus']} are not its shards' summed {summed}"
            )
        return record

    @classmethod
    def read(cls, path: str | os.PathLike) -> ContaminationRecord:
        """The record in ``path``; a malformed one raises a ValueError naming the file."""
        return read_record(path, cls.from_record, "contamination record (contamination.json)")
