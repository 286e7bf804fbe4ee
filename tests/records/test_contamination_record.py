"""contamination.json read into its dataclass and written back: the same keys, values and
order; an older record without the unchecked examples' count; a malformed one refused,
naming its file."""

from __future__ import annotations

import json

import pytest

from biocompact.entries import parse_record
from biocompact.files.atomic import write_json
from biocompact.records.base import record_data
from biocompact.records.contamination import (
    CheckedSplit,
    ContaminationRecord,
    DocumentCounts,
    Matches,
)

SHARD = {
    "shard": "results/corpus/sentences/pubmed24n0001.txt.gz",
    "documents": 4,
    "sentences": 7,
    "documents_removed": 3,
    "sentences_removed": 6,
    "documents_matched_by_pmid": 1,
    "documents_matched_by_ngram": 2,
}
TEXT_SHARD = {
    "shard": "results/corpus/sentences/text/notes.txt.gz",
    "documents": 2,
    "sentences": 2,
    "documents_removed": 1,
    "sentences_removed": 1,
    "documents_matched_by_pmid": 0,
    "documents_matched_by_ngram": 1,
}
SPLIT = {
    "task": "ncbi-disease",
    "split": "test",
    "family": "ner",
    "files": ["data/ncbi/test.tsv"],
    "examples": 940,
    "examples_under_ngram": 20,
    "examples_with_pmid": 8,
    "examples_unchecked": 12,
    "pmid": {"documents": 1, "sentences": 3, "examples": 8},
    "ngram": {"documents": 2, "sentences": 4, "examples": 31},
    "documents_removed": 3,
}
# as the corpus stage writes it: the corpus totals (and shard count) before the splits
CONTAMINATION = {
    "ngram": 13,
    "tasks": ["ncbi-disease"],
    "corpus": {
        "shards": 2,
        "documents": 6,
        "sentences": 9,
        "documents_removed": 4,
        "sentences_removed": 7,
        "documents_matched_by_pmid": 1,
        "documents_matched_by_ngram": 3,
    },
    "splits": [SPLIT],
    "shards": [SHARD, TEXT_SHARD],
}
# written before the examples that nothing could check were counted
OLDER = {
    **CONTAMINATION,
    "splits": [{key: value for key, value in SPLIT.items() if key != "examples_unchecked"}],
}


@pytest.mark.parametrize("record", [CONTAMINATION, OLDER], ids=["current", "older"])
def test_a_contamination_record_reads_back_and_writes_the_same_file(tmp_path, record):
    path = tmp_path / "contamination.json"
    write_json(path, record)
    read = ContaminationRecord.read(path)
    assert list(record_data(read).items()) == list(record.items())
    again = tmp_path / "again.json"
    write_json(again, record_data(read))
    assert again.read_bytes() == path.read_bytes()


def test_a_contamination_record_holds_its_splits_and_the_shards_summed():
    record = parse_record(ContaminationRecord, CONTAMINATION)
    assert record.corpus.shards == 2
    assert record.corpus.counts == DocumentCounts(
        documents=6,
        sentences=9,
        documents_removed=4,
        sentences_removed=7,
        documents_matched_by_pmid=1,
        documents_matched_by_ngram=3,
    )
    [split] = record.splits
    assert split.checked == CheckedSplit(
        task="ncbi-disease",
        split="test",
        family="ner",
        files=["data/ncbi/test.tsv"],
        examples=940,
        examples_under_ngram=20,
        examples_with_pmid=8,
        examples_unchecked=12,
    )
    assert (split.pmid, split.ngram) == (
        Matches(documents=1, sentences=3, examples=8),
        Matches(documents=2, sentences=4, examples=31),
    )
    assert [shard.shard for shard in record.shards] == [SHARD["shard"], TEXT_SHARD["shard"]]


def test_an_older_contamination_record_reads_without_the_unchecked_count():
    [split] = parse_record(ContaminationRecord, OLDER).splits
    assert split.checked.examples_unchecked is None
    assert "examples_unchecked" not in record_data(split)


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ([CONTAMINATION], "a list, not an object"),
        ({**CONTAMINATION, "notes": "by hand"}, r"keys of no contamination record: \['notes'\]"),
        ({key: value for key, value in CONTAMINATION.items() if key != "corpus"}, "lacks"),
        ({**CONTAMINATION, "shards": SHARD}, "its shards are not a list"),
        (
            {**CONTAMINATION, "corpus": {**CONTAMINATION["corpus"], "documents": 7}},
            "its corpus totals .* are not its shards' summed",
        ),
        (
            {**CONTAMINATION, "splits": [{**SPLIT, "pmid": 8}]},
            "its pmid matches are not an object",
        ),
        (
            {**CONTAMINATION, "splits": [{**SPLIT, "ngram": {**SPLIT["ngram"], "words": 1}}]},
            r"keys of no ngram matches: \['words'\]",
        ),
        (
            {**CONTAMINATION, "shards": [SHARD, {**TEXT_SHARD, "pmid": "1"}]},
            r"keys of no shard's totals: \['pmid'\]",
        ),
        (
            {**CONTAMINATION, "splits": [{k: v for k, v in SPLIT.items() if k != "family"}]},
            r"lacks \['family'\]",
        ),
    ],
)
def test_a_malformed_contamination_record_is_refused_naming_its_file(tmp_path, record, message):
    path = tmp_path / "contamination.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    with pytest.raises(ValueError, match=message) as error:
        ContaminationRecord.read(path)
    assert str(error.value).startswith(f"{path}: ")
