"""A transfer set's record (results/task_distillation/transfer/{transfer}.json) read into its
dataclass and written back unchanged, checked or not; a malformed one refused, naming its
file."""

from __future__ import annotations

import json

import pytest

from biocompact.files.atomic import write_json
from biocompact.records.base import record_data
from biocompact.records.transfer_set import TransferSetRecord

# as rule transfer_set writes it: checked against two tasks' test sets, and unchecked
CHECKED = {
    "name": "abstracts",
    "examples": 2000,
    "checked_test_sets": ["ncbi", "hoc"],
    "ngram": 13,
    "dropped": 3,
    "dropped_by_task": {"hoc": 1, "ncbi": 2},
}
UNCHECKED = {
    "name": "random",
    "examples": 200,
    "checked_test_sets": [],
    "ngram": None,
    "dropped": 0,
    "dropped_by_task": {},
}


@pytest.mark.parametrize("record", [CHECKED, UNCHECKED], ids=["checked", "unchecked"])
def test_a_transfer_set_record_reads_back_and_writes_the_same_file(tmp_path, record):
    path = tmp_path / "abstracts.json"
    write_json(path, record)
    read = TransferSetRecord.read(path)
    assert (read.name, read.examples, read.dropped) == (
        record["name"],
        record["examples"],
        record["dropped"],
    )
    assert list(record_data(read).items()) == list(record.items())
    again = tmp_path / "again.json"
    write_json(again, record_data(read))
    assert again.read_bytes() == path.read_bytes()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[]", "not a JSON transfer set record"),
        (json.dumps({**CHECKED, "kept": 1}), r"keys of no transfer set record: \['kept'\]"),
        (
            json.dumps({k: v for k, v in CHECKED.items() if k != "dropped"}),
            r"a malformed transfer set record .*: it lacks \['dropped'\]",
        ),
        (json.dumps({**CHECKED, "dropped_by_task": {"hoc": "1"}}), "dropped_by_task.hoc"),
    ],
)
def test_a_malformed_transfer_set_record_is_refused_naming_its_file(tmp_path, content, message):
    path = tmp_path / "abstracts.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=message) as error:
        TransferSetRecord.read(path)
    assert str(error.value).startswith(f"{path}: ")
