"""What the records share: a file read into its dataclass with errors that name the file,
the fields an older record may lack, the fields written only when set or when their record
says so, and the one writer of a record's JSON object (``record_data``, the inverse of
``entries.parse_record``)."""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable, Collection, Mapping
from dataclasses import MISSING, Field, field, fields, is_dataclass
from typing import Any, ClassVar, Self, TypeVar

from biocompact.entries import LAYOUT, parse_record

Record = TypeVar("Record")

WRITTEN = "written"  # the key of a field's metadata that says when its record writes it


def written_when(condition: Callable[[Any, Any], bool]) -> dict[str, Any]:
    """A field's metadata: written only when ``condition(record, value)`` holds (a key some
    records hold; one that lacks it reads with the field's default)."""
    return {WRITTEN: condition}


def when_set() -> Any:
    """A field that defaults to None and is written only when set."""
    return field(default=None, metadata=written_when(lambda record, value: value is not None))


def read_record(
    path: str | os.PathLike, parse: Callable[[Mapping[str, Any]], Record], what: str
) -> Record:
    """``parse`` of the JSON object in ``path``; a file that is not JSON, not an object, or
    that ``parse`` refuses raises a ValueError naming the file and ``what`` it should hold."""
    with open(path, encoding="utf-8") as handle:
        try:
            data = json.load(handle)
        except ValueError as error:
            raise ValueError(f"{path}: not a JSON {what}: {error}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: not a JSON {what}: a {type(data).__name__}, not an object")
    try:
        return parse(data)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{path}: a malformed {what}: {error}") from None


class RecordFile:
    """A record that is a whole JSON file, read with ``read``; ``FILE`` says what the file
    holds, as its errors name it."""

    FILE: ClassVar[str]

    @classmethod
    def read(cls, path: str | os.PathLike) -> Self:
        """The record in ``path``; a malformed one raises a ValueError naming the file."""
        return read_record(path, functools.partial(parse_record, cls), cls.FILE)


def field_values(cls: type, data: Mapping[str, Any], given: Collection[str] = ()) -> dict[str, Any]:
    """The values in ``data`` of the fields of dataclass ``cls`` but those ``given``
    otherwise. A field that ``data`` lacks, or holds as null where its default is not None
    (an older record), takes its default; one without a default raises a ValueError naming
    it."""
    read = [item for item in fields(cls) if item.name not in given]
    lacking = [item.name for item in read if item.name not in data and _required(item)]
    if lacking:
        raise ValueError(f"it lacks {lacking}")
    return {
        item.name: data[item.name]
        for item in read
        if item.name in data
        and (data[item.name] is not None or _required(item) or item.default is None)
    }


def _required(item: Field) -> bool:
    return item.default is MISSING and item.default_factory is MISSING


def record_data(record: Any) -> dict[str, Any]:
    """Dataclass instance ``record`` as the JSON object of its file, which
    ``entries.parse_record`` reads back to an equal record: its fields in their order, those
    ``written_when`` (``when_set``) only when their condition holds, the keys of a ``FLAT``
    or ``rest`` field's object among its own at the field's place, nested dataclasses
    written alike, tuples as lists."""
    data: dict[str, Any] = {}
    for item in fields(record):
        value = getattr(record, item.name)
        if WRITTEN in item.metadata and not item.metadata[WRITTEN](record, value):
            continue
        if item.metadata.get(LAYOUT) in ("flat", "rest"):
            data.update(_json_value(value))
        else:
            data[item.name] = _json_value(value)
    return data


def _json_value(value: Any) -> Any:
    """A field's ``value`` as its record holds it: a dataclass as its object (``record_data``),
    a mapping's and a sequence's items alike, a tuple as a list."""
    if is_dataclass(value) and not isinstance(value, type):
        return record_data(value)
    if isinstance(value, Mapping):
        return {key: _json_value(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_value(item) for item in value]
    return value
