"""What the generated config schema says of a field beyond its type, default and
constraints: pydantic's ``json_schema_extra`` values (``Annotated[X, Field(json_schema_extra=
one_of)]``) that write a field as the config schema means it."""

from __future__ import annotations

from typing import Any

from pydantic import BeforeValidator, Field

# A list's items given once each (the schema's uniqueItems): ``Annotated[tuple[str, ...],
# UNIQUE_ITEMS]``
UNIQUE_ITEMS = Field(json_schema_extra={"uniqueItems": True})


def one_of(schema: dict[str, Any]) -> None:
    """``json_schema_extra`` of a field whose type is a union of options that exclude each
    other: its schema's ``oneOf`` (pydantic writes ``anyOf``), a constant ``const`` alone."""
    schema["oneOf"] = [
        {"const": option["const"]} if "const" in option else option
        for option in schema.pop("anyOf")
    ]


def left_out_or_given(schema: dict[str, Any]) -> None:
    """``json_schema_extra`` of a field ``X | None = None`` whose None means only "left out of
    the config" (or of a parse that does not need it): its schema is X's, without null or a
    default."""
    del schema["default"]
    options = schema.pop("anyOf", None)
    if options:
        schema.update(next(option for option in options if option.get("type") != "null"))
    else:
        schema["type"] = next(kind for kind in schema["type"] if kind != "null")


def no_schema_default(schema: dict[str, Any]) -> None:
    """A field's ``json_schema_extra`` for a default the schema does not fill in (the rule's
    params hold the entry as written)."""
    del schema["default"]


def _with_names(entries: Any) -> Any:
    """Config entries by name, each with its ``name`` field set to its key."""
    if not isinstance(entries, dict):
        return entries
    return {
        name: {**entry, "name": name} if isinstance(entry, dict) else entry
        for name, entry in entries.items()
    }


# Entries keyed by their names (``Annotated[dict[str, X], NAMED_ENTRIES]``), whose class X
# has a ``name`` field that the config does not write: a parse sets it to the entry's key.
NAMED_ENTRIES = BeforeValidator(_with_names)
