"""A prepared dataset file's checked counts ({cache}/counts/{dataset}/{file}.json) read into
their dataclass and written back unchanged, with a fold and without, with a published size
and without; a malformed record refused, naming its file."""

from __future__ import annotations

import json

import pytest

from biocompact.files.atomic import write_json
from biocompact.records.base import record_data
from biocompact.records.dataset_counts import CheckedCounts, PreparedFileCounts

# as rule prepare_dataset writes them: a split with its published size, and a fold's split
# of a dataset whose sizes no source states
PUBLISHED = {
    "dataset": "bc5cdr-disease",
    "split": "dev",
    "fold": None,
    "unit": "mentions",
    "converted": 4246,
    "published": 4244,
    "tolerance": 2,
    "sizes_from": "BioBERT's archive",
    "note": "two mentions split across sentences",
    "file": "dev.tsv",
    "bytes": 412345,
}
UNPUBLISHED = {
    "dataset": "gad",
    "split": "test",
    "fold": "2",
    "unit": "instances",
    "converted": 534,
    "published": None,
    "tolerance": 0,
    "sizes_from": None,
    "note": None,
    "file": "2/test.tsv",
    "bytes": 81234,
}


@pytest.mark.parametrize("record", [PUBLISHED, UNPUBLISHED], ids=["published", "fold"])
def test_dataset_counts_read_back_and_write_the_same_file(tmp_path, record):
    path = tmp_path / "dev.tsv.json"
    write_json(path, record)
    read = PreparedFileCounts.read(path)
    assert (read.counts.dataset, read.counts.fold, read.file) == (
        record["dataset"],
        record["fold"],
        record["file"],
    )
    assert list(record_data(read).items()) == list(record.items())
    again = tmp_path / "again.json"
    write_json(again, record_data(read))
    assert again.read_bytes() == path.read_bytes()


def test_dataset_counts_hold_the_checked_counts():
    read = PreparedFileCounts(
        counts=CheckedCounts(
            **{key: value for key, value in PUBLISHED.items() if key not in ("file", "bytes")}
        ),
        file="dev.tsv",
        bytes=412345,
    )
    assert record_data(read) == PUBLISHED


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", "not a JSON dataset counts record"),
        (
            json.dumps({**PUBLISHED, "split_": "x"}),
            r"keys of no dataset counts record: \['split_'\]",
        ),
        (
            json.dumps({k: v for k, v in PUBLISHED.items() if k != "converted"}),
            r"it lacks \['converted'\]",
        ),
        (json.dumps({**PUBLISHED, "converted": "4246"}), "its counts.converted is '4246'"),
    ],
)
def test_malformed_dataset_counts_are_refused_naming_their_file(tmp_path, content, message):
    path = tmp_path / "dev.tsv.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=message) as error:
        PreparedFileCounts.read(path)
    assert str(error.value).startswith(f"{path}: ")
