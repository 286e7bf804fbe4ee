"""``record_data``, the one writer of the records, on a small record of every layout: a
``FLAT`` field's keys and a ``rest`` field's at their places, ``when_set`` and
``written_when`` fields written only when their condition holds, nested dataclasses and
tuples; ``parse_record`` reads what it writes back to an equal record, and it writes what
``parse_record`` read back to the same object, key order included."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pytest

from biocompact.entries import FLAT, parse_record, rest
from biocompact.records.base import record_data, when_set, written_when


@dataclass(frozen=True, kw_only=True)
class Counts:
    documents: int
    share: float


@dataclass(frozen=True, kw_only=True)
class Part:
    name: str
    sizes: tuple[int, ...]


@dataclass(frozen=True, kw_only=True)
class Small:
    RECORD = "small record"

    name: str
    counts: Counts = field(metadata=FLAT)
    note: str | None = when_set()
    parts: list[Part]
    by_name: dict[str, Part] | None = when_set()
    step: int | None = field(
        default=None, metadata=written_when(lambda record, value: not record.parts)
    )
    stats: dict[str, int] = field(default_factory=dict, metadata=rest("counts"))
    last: float | None = None


SMALL = Small(
    name="a",
    counts=Counts(documents=3, share=1),  # an int in a float field, kept an int
    parts=[Part(name="p", sizes=(1, 2))],
    by_name={"q": Part(name="q", sizes=())},
    stats={"truncated": 2, "empty": 0},
)
# SMALL's object, written by hand: the keys in the fields' order, the counts' and the
# stats' at their fields' places, note and step left out, last written though null
WRITTEN = {
    "name": "a",
    "documents": 3,
    "share": 1,
    "parts": [{"name": "p", "sizes": [1, 2]}],
    "by_name": {"q": {"name": "q", "sizes": []}},
    "truncated": 2,
    "empty": 0,
    "last": None,
}
# without parts: step written (null too), by_name left out, note written
PARTLESS = {
    "name": "b",
    "documents": 0,
    "share": 0.5,
    "note": "by hand",
    "parts": [],
    "step": None,
    "last": 2.5,
}


def test_a_record_is_written_field_by_field_in_its_layout():
    written = record_data(SMALL)
    assert list(written.items()) == list(WRITTEN.items())
    assert json.dumps(written) == json.dumps(WRITTEN)  # share: 1, not 1.0
    assert parse_record(Small, written) == SMALL


def test_a_field_written_when_set_or_when_its_record_says_so():
    partless = Small(
        name="b", counts=Counts(documents=0, share=0.5), note="by hand", parts=[], last=2.5
    )
    assert list(record_data(partless).items()) == list(PARTLESS.items())


@pytest.mark.parametrize("data", [WRITTEN, PARTLESS], ids=["parts", "partless"])
def test_the_writer_is_the_inverse_of_parse_record(data):
    read = parse_record(Small, data)
    assert json.dumps(record_data(read)) == json.dumps(data)  # key order and ints too
    assert parse_record(Small, record_data(read)) == read
