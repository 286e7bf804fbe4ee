"""What the records share: a file read into its dataclass with errors that name the file,
the fields an older record may lack, and the fields written only when set."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Collection, Mapping
from dataclasses import MISSING, Field, field, fields
from typing import Any, TypeVar

Record = TypeVar("Record")

# a field's metadata: written only when its value is not None (a key some records hold)
WHEN_SET = {"written": "when set"}


def when_set() -> Any:
    """A field that defaults to None and is written only when set."""
    return field(default=None, metadata=WHEN_SET)


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


def written_fields(record: Any) -> dict[str, Any]:
    """The fields of dataclass instance ``record`` in their order, those ``when_set`` only
    when not None."""
    return {
        item.name: value
        for item in fields(record)
        if (value := getattr(record, item.name)) is not None or item.metadata != WHEN_SET
    }
