"""The checks every config entry's parse shares: unknown keys and value types."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
import yaml

from biocompact.entries import parse_entry


@dataclass(frozen=True)
class Entry:
    name: str
    rate: float = 1.0
    steps: int = 1
    limit: int | None = None
    flag: bool = False
    labels: tuple[str, ...] = ()


def test_an_unknown_key_is_named_with_the_known_ones():
    known = r"\['flag', 'labels', 'limit', 'name', 'rate', 'steps'\]"
    with pytest.raises(ValueError, match=rf"^sec: unknown setting 'rte'; known: {known}$"):
        parse_entry(Entry, {"name": "x", "rte": 2}, "sec")


@pytest.mark.parametrize(
    "entry",
    [
        {"name": "x", "rate": 2, "steps": 3, "limit": None, "flag": True},
        {"name": "x", "rate": 2.5e-4, "limit": 7, "labels": ["anything"]},
    ],
)
def test_values_of_their_types_pass_as_given(entry):
    parsed = parse_entry(Entry, entry, "sec")
    assert {key: getattr(parsed, key) for key in entry} == {
        **entry,
        **({"labels": tuple(entry["labels"])} if "labels" in entry else {}),
    }
    assert type(parsed.rate) is type(entry["rate"])  # an integer number stays an integer


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (
            {"rate": "2e-4"},
            "sec: rate is '2e-4', not a number (YAML reads 2e-4 as text: write 2.0e-4, unquoted)",
        ),
        (
            {"rate": "1.5E3"},
            "sec: rate is '1.5E3', not a number (YAML reads 1.5E3 as text: write 1.5e+3, unquoted)",
        ),
        ({"rate": "fast"}, "sec: rate is 'fast', not a number"),
        ({"rate": True}, "sec: rate is True, not a number"),
        ({"steps": 2.0}, "sec: steps is 2.0, not an integer"),
        (
            {"limit": "7"},
            "sec: limit is '7', not an integer or null (YAML reads 7 as text: write 7, unquoted)",
        ),
        ({"flag": "yes please"}, "sec: flag is 'yes please', not true or false"),
        ({"name": 3}, "sec: name is 3, not text"),
    ],
)
def test_a_value_of_another_type_is_named_with_the_type_expected(entry, message):
    with pytest.raises(ValueError) as raised:
        parse_entry(Entry, {"name": "x", **entry}, "sec")
    assert str(raised.value) == message


@pytest.mark.parametrize("text", ["2e-4", "1.5E3", "1e+5", "7"])
def test_the_spelling_suggested_is_a_number_to_yaml(text):
    with pytest.raises(ValueError) as raised:
        parse_entry(Entry, {"name": "x", "rate": text}, "sec")
    written = str(raised.value).split("write ")[1].removesuffix(", unquoted)")
    assert isinstance(yaml.safe_load(f"x: {written}")["x"], int | float)


@dataclass(frozen=True)
class _Shard:
    path: str
    lines: int = 0
    labels: tuple[str, ...] = ()
    columns: tuple[str, ...] | None = None
    notes: list[str] | None = None


def test_parse_entry_builds_the_dataclass_with_tuples_where_it_declares_them():
    entry = {"path": "a.txt", "labels": ["x", "y"], "columns": ["c"], "notes": ["n"]}
    assert parse_entry(_Shard, entry, "rule shard") == _Shard("a.txt", 0, ("x", "y"), ("c",), ["n"])
    assert parse_entry(_Shard, {"path": "b.txt", "columns": None}, "rule shard").columns is None


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"path": "a.txt", "line": 2}, "rule shard: unknown setting 'line'"),
        ({"path": "a.txt", "lines": "2"}, "rule shard: lines is '2', not an integer"),
    ],
)
def test_parse_entry_names_the_bad_setting(entry, message):
    with pytest.raises(ValueError, match=message):
        parse_entry(_Shard, entry, "rule shard")
