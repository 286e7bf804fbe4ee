"""``contamination.json``: the record of the pretraining corpus's decontamination, written by
the corpus stage (``corpus.decontamination.contamination_summary``) and read by the model
cards and the report (docs/outputs.md)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields

from biocompact.entries import FLAT
from biocompact.records.base import RecordFile, record_data, when_set


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
class SplitMatchCounts:
    """What one shard matched of a checked split (its task and split): the documents and
    sentences matched by PMID and by n-gram, and the documents removed on its account."""

    task: str
    split: str
    pmid_documents: int
    pmid_sentences: int
    ngram_documents: int
    ngram_sentences: int
    documents_removed: int


@dataclass(frozen=True, kw_only=True)
class ShardMatches(RecordFile):
    """A shard's ``.matches.json``, written by its decontamination job and summed into
    ``contamination.json``: its counts, what it matched of each checked split (in the
    evaluation index's order), and the n-gram hashes (16 hex digits) and PMIDs it matched."""

    FILE = "shard's matches record"
    RECORD = "shard's matches"

    shard: str
    counts: DocumentCounts = field(metadata=FLAT)
    splits: list[SplitMatchCounts]
    matched_ngrams: list[str]
    matched_pmids: list[int]


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
class CorpusTotals:
    """The whole corpus's counts, its shards' summed, and the number of shards."""

    RECORD = "corpus totals"

    shards: int
    counts: DocumentCounts = field(metadata=FLAT)

    @classmethod
    def of(cls, shards: Sequence[ShardTotals]) -> CorpusTotals:
        """The totals of ``shards``."""
        return cls(
            shards=len(shards), counts=DocumentCounts.total(shard.counts for shard in shards)
        )


@dataclass(frozen=True, kw_only=True)
class ContaminationRecord(RecordFile):
    """``contamination.json``: the corpus's decontamination against the dev and test text of
    ``tasks`` by PMID and by n-grams of ``ngram`` words, per checked split and per shard, and
    the corpus's totals, which must be the shards' summed (``CorpusTotals.of``)."""

    FILE = "contamination record (contamination.json)"
    RECORD = "contamination record"

    ngram: int
    tasks: list[str]
    corpus: CorpusTotals
    splits: list[SplitContamination]
    shards: list[ShardTotals]

    def __post_init__(self) -> None:
        summed = CorpusTotals.of(self.shards)
        if self.corpus != summed:
            raise ValueError(
                f"its corpus totals {record_data(self.corpus)} are not its shards' summed "
                f"{record_data(summed)}"
            )
