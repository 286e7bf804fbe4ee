"""``results/corpus/stats.json``: the record of the whole corpus's statistics, written by the
corpus stage (``corpus.stats.sum_corpus_stats``) and read by the report (docs/outputs.md)."""

from __future__ import annotations

from dataclasses import dataclass, field

from biocompact.entries import FLAT
from biocompact.records.base import RecordFile, when_set


@dataclass(frozen=True, kw_only=True)
class TextTotals:
    """The records parsed (citations, articles, a local source's records) and the
    documents, sentences, words and characters of the text kept."""

    RECORD = "{key} totals"  # of a source

    records: int
    documents: int
    sentences: int
    words: int
    characters: int


@dataclass(frozen=True, kw_only=True)
class CorpusStatistics(RecordFile):
    """``stats.json``: the corpus's ``files`` (PubMed stems, ``pmc/{file}``,
    ``text/{source}``), their ``totals`` (each a key of its own in the file), documents per
    year, records and documents skipped per reason, and the totals of each source (pubmed,
    pmc, text; None: an older record's, written before they were counted)."""

    FILE = "corpus statistics record (stats.json)"
    RECORD = "corpus statistics"

    files: list[str]
    totals: TextTotals = field(metadata=FLAT)
    per_year: dict[str, int]  # year (or unknown) -> documents
    skipped: dict[str, int]  # reason -> records or documents
    sources: dict[str, TextTotals] | None = when_set()
