"""results/corpus/stats.json read into its dataclass and written back: the same keys, values
and order; an older record without the sources' totals; a malformed one refused, naming its
file."""

from __future__ import annotations

import json

import pytest

from biocompact.entries import parse_record
from biocompact.files.atomic import write_json
from biocompact.records.base import record_data
from biocompact.records.corpus_statistics import CorpusStatistics, TextTotals

NONE = {"records": 0, "documents": 0, "sentences": 0, "words": 0, "characters": 0}
# as the corpus stage writes it: two PubMed files and a local text source
STATS = {
    "files": ["pubmed24n0001", "pubmed24n0002", "text/notes"],
    "records": 13,
    "documents": 5,
    "sentences": 50,
    "words": 500,
    "characters": 5000,
    "per_year": {"2000": 2, "2001": 2, "unknown": 1},
    "skipped": {"book_article": 2, "no_abstract": 2},
    "sources": {
        "pubmed": {
            "records": 12,
            "documents": 4,
            "sentences": 48,
            "words": 490,
            "characters": 4950,
        },
        "pmc": NONE,
        "text": {"records": 1, "documents": 1, "sentences": 2, "words": 10, "characters": 50},
    },
}
# written before each source's totals were counted
OLDER = {key: value for key, value in STATS.items() if key != "sources"}


@pytest.mark.parametrize("record", [STATS, OLDER], ids=["current", "older"])
def test_corpus_statistics_read_back_and_write_the_same_file(tmp_path, record):
    path = tmp_path / "stats.json"
    write_json(path, record)
    read = CorpusStatistics.read(path)
    assert list(record_data(read).items()) == list(record.items())
    assert parse_record(CorpusStatistics, record_data(read)) == read
    again = tmp_path / "again.json"
    write_json(again, record_data(read))
    assert again.read_bytes() == path.read_bytes()


def test_corpus_statistics_hold_the_totals_and_each_sources():
    stats = parse_record(CorpusStatistics, STATS)
    assert stats.totals == TextTotals(
        records=13, documents=5, sentences=50, words=500, characters=5000
    )
    assert stats.sources is not None and stats.sources["pmc"] == TextTotals(**NONE)
    assert parse_record(CorpusStatistics, OLDER).sources is None


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({**STATS, "shards": 3}, r"keys of no corpus statistics: \['shards'\]"),
        ({k: v for k, v in STATS.items() if k != "words"}, r"lacks \['words'\]"),
        ({**STATS, "sources": []}, "its sources are not an object"),
        (
            {**STATS, "sources": {**STATS["sources"], "pmc": {**NONE, "articles": 1}}},
            r"keys of no pmc totals: \['articles'\]",
        ),
    ],
)
def test_malformed_corpus_statistics_are_refused_naming_their_file(tmp_path, record, message):
    path = tmp_path / "stats.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    with pytest.raises(ValueError, match=message) as error:
        CorpusStatistics.read(path)
    assert str(error.value).startswith(f"{path}: a malformed corpus statistics record")
