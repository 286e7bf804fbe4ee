"""``results/corpus/stats.json``: the record of the whole corpus's statistics, written by the
corpus stage (``corpus.stats.sum_corpus_stats``) and read by the report (docs/outputs.md)."""

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
    when_set,
    written_fields,
)


@dataclass(frozen=True, kw_only=True)
class TextTotals:
    """The records parsed (citations, articles, a local source's records) and the
    documents, sentences, words and characters of the text kept."""

    records: int
    documents: int
    sentences: int
    words: int
    characters: int

    @classmethod
    def of_source(cls, source: str, data: Mapping[str, Any]) -> TextTotals:
        """The totals of ``source`` in a record's ``sources``."""
        refuse_unknown_keys(data, field_names(cls), f"{source} totals")
        return cls(**field_values(cls, data))


@dataclass(frozen=True, kw_only=True)
class CorpusStatistics:
    """``stats.json``: the corpus's ``files`` (PubMed stems, ``pmc/{file}``,
    ``text/{source}``), their ``totals`` (each a key of its own in the file), documents per
    year, records and documents skipped per reason, and the totals of each source (pubmed,
    pmc, text; None: an older record's, written before they were counted)."""

    files: list[str]
    totals: TextTotals
    per_year: dict[str, int]  # year (or unknown) -> documents
    skipped: dict[str, int]  # reason -> records or documents
    sources: dict[str, TextTotals] | None = when_set()

    def as_record(self) -> dict[str, Any]:
        """The record as ``stats.json`` holds it."""
        record: dict[str, Any] = {}
        for name, value in written_fields(self).items():
            if name == "totals":
                record.update(written_fields(value))
            elif name == "sources":
                record[name] = {source: written_fields(item) for source, item in value.items()}
            else:
                record[name] = value
        return record

    @classmethod
    def from_record(cls, data: Mapping[str, Any]) -> CorpusStatistics:
        """The record of ``stats.json``'s content; a key it does not write raises a
        ValueError."""
        refuse_unknown_keys(data, field_names(cls) | field_names(TextTotals), "corpus statistics")
        sources = data.get("sources")
        if sources is not None and not isinstance(sources, dict):
            raise ValueError("its sources are not an object of source -> totals")
        return cls(
            totals=TextTotals(**field_values(TextTotals, data)),
            sources=None
            if sources is None
            else {source: TextTotals.of_source(source, item) for source, item in sources.items()},
            **field_values(cls, data, given={"totals", "sources"}),
        )

    @classmethod
    def read(cls, path: str | os.PathLike) -> CorpusStatistics:
        """The record in ``path``; a malformed one raises a ValueError naming the file."""
        return read_record(path, cls.from_record, "corpus statistics record (stats.json)")
