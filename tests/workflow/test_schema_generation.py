"""The config schema is generated from the settings classes: the checked-in file is what
they give, in the style of a schema written by hand."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated

import pytest
from pydantic import Field, TypeAdapter

from biocompact.entries import ENTRY
from biocompact.workflow.schema_generation import SCHEMA_PATH, ConfigStyle, schema_text


def test_the_checked_in_schema_is_the_one_the_classes_give(repo_root):
    written = (repo_root / SCHEMA_PATH).read_text(encoding="utf-8")
    assert written == schema_text(), "the settings classes changed: run `make schema`"


@dataclass(frozen=True)
class _Inner:
    __pydantic_config__ = ENTRY

    size: Annotated[int, Field(ge=1)] = 2
    """how many"""


@dataclass(frozen=True)
class _Entry:
    """An entry."""

    __pydantic_config__ = ENTRY

    name: str
    rate: float | None = None
    inner: _Inner = _Inner()
    tags: tuple[str, ...] = ()
    named: dict[str, _Inner] = field(default_factory=dict)


def test_a_class_gives_the_hand_written_style():
    generated = TypeAdapter(_Entry).json_schema(schema_generator=ConfigStyle)
    assert generated["properties"]["rate"] == {"type": ["number", "null"], "default": None}
    assert generated["properties"]["inner"] == {"$ref": "#/$defs/_Inner", "default": {}}
    assert generated["$defs"]["_Inner"] == {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "size": {"type": "integer", "minimum": 1, "default": 2, "description": "how many"}
        },
    }
    assert generated["properties"]["named"]["default"] == {}
    assert generated["required"] == ["name"]
    assert generated["description"] == "An entry."


@pytest.mark.parametrize("size", [1, 3])
def test_a_default_that_is_not_the_class_defaults_is_written_whole(size):
    @dataclass(frozen=True)
    class Holder:
        inner: _Inner = _Inner(size)

    generated = TypeAdapter(Holder).json_schema(schema_generator=ConfigStyle)
    assert generated["properties"]["inner"]["default"] == ({} if size == 2 else {"size": size})
