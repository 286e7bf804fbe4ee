"""Config entries and rule params parsed into their frozen dataclasses: one parser for all
(pydantic over the dataclasses' annotations), with errors that name the section, the key,
the value and the type expected.

Every scalar is read strictly: YAML 1.1, which PyYAML reads, takes ``2e-4`` for text (a
float needs a dot: ``2.0e-4``), and a learning rate that is text would otherwise fail deep
in a training job, or be converted silently, instead of being named when the DAG is built.
An integer is a number (and stays an integer: a config's ``epochs: 3`` is read as 3, not 3.0);
a bool is never a number; a list becomes a tuple where the class declares one. A dataclass sets ``__pydantic_config__ = ENTRY`` to have its field docstrings
in the generated config schema (``biocompact.workflow.schema_generation``).
"""

from __future__ import annotations

import copy
import functools
import types
import typing
from collections.abc import Iterable, Mapping
from dataclasses import fields, is_dataclass
from typing import Any, TypeVar

from pydantic import ConfigDict, Field, TypeAdapter, ValidationError
from pydantic_core import SchemaValidator, core_schema
from typing_extensions import is_typeddict

Entry = TypeVar("Entry")

# The settings of every entry class: unknown keys refused; each field's docstring is its
# description in the generated schema.
ENTRY = ConfigDict(extra="forbid", use_attribute_docstrings=True)
# Core-schema scalar types read strictly (``int`` refuses ``'7'`` and ``True``; ``float``
# refuses text and takes an int as it is, ``_int_as_given``).
STRICT_SCALARS = ("int", "float", "bool", "str")
TYPE_WORDS = {bool: "true or false", int: "an integer", float: "a number", str: "text"}
# A list's items given once each (the schema's uniqueItems): ``Annotated[tuple[str, ...],
# UNIQUE_ITEMS]``
UNIQUE_ITEMS = Field(json_schema_extra={"uniqueItems": True})


def parse_entry(cls: type[Entry], entry: Mapping[str, Any], where: str | None = None) -> Entry:
    """``entry`` as dataclass ``cls`` (nested dataclasses and tuples built from their
    mappings and lists); a ValueError names ``where`` (the rule, or by default the config
    section ``cls`` is an entry of, its ``SECTION``), the first bad key and what is wrong."""
    try:
        return _validator(cls).validate_python(dict(entry))
    except ValidationError as error:
        place = where or getattr(cls, "SECTION", cls.__name__)
        raise ValueError(_message(cls, error.errors()[0], place)) from None


def one_of(schema: dict[str, Any]) -> None:
    """``json_schema_extra`` of a field whose type is a union of options that exclude each
    other: its schema's ``oneOf`` (pydantic writes ``anyOf``), a constant ``const`` alone."""
    schema["oneOf"] = [
        {"const": option["const"]} if "const" in option else option
        for option in schema.pop("anyOf")
    ]


@functools.cache
def _validator(cls: type) -> SchemaValidator:
    """The validator of ``cls``, strict (built once per class: the workflow
    parses a task's entry for every job when it builds the DAG)."""
    schema = copy.deepcopy(TypeAdapter(cls).core_schema)
    return SchemaValidator(_strict(schema))


def _strict(schema: Any) -> Any:
    """``schema`` (a pydantic core schema) with every scalar of ``STRICT_SCALARS`` strict, every
    float keeping an int as it is, and every dataclass refusing keys it does not have."""
    if isinstance(schema, list):
        return [_strict(value) for value in schema]
    if not isinstance(schema, dict):
        return schema
    strict = {key: _strict(value) for key, value in schema.items()}
    if strict.get("type") in STRICT_SCALARS:
        strict["strict"] = True
    if strict.get("type") == "dataclass-args":
        strict["extra_behavior"] = "forbid"
    if strict.get("type") == "float":
        return core_schema.no_info_wrap_validator_function(_int_as_given, strict)
    return strict


def _int_as_given(value: Any, validate: core_schema.ValidatorFunctionWrapHandler) -> Any:
    """A float field's value, checked by ``validate``; an int kept an int (the config's, in
    the records and the names built from it)."""
    checked = validate(value)
    return value if type(value) is int else checked


def _message(cls: type, problem: Mapping[str, Any], where: str) -> str:
    """One line for pydantic's ``problem`` with ``cls``'s entry read at ``where``: an
    unknown key with the known ones, a value of the wrong type with the type expected, a
    check of the class's own (``__post_init__``) in its words, else pydantic's."""
    loc = tuple(problem["loc"])
    if problem["type"] == "value_error":  # of the entry, or of a nested one: named where it is
        inner = (*loc, "")
        prefix = f"{_place(cls, _owner(cls, inner), inner, where)}: " if loc else ""
        return f"{prefix}{problem['ctx']['error']}"
    owner = _owner(cls, loc)
    place = _place(cls, owner, loc, where)
    key = loc[-1] if loc else ""
    if problem["type"] in ("unexpected_keyword_argument", "extra_forbidden"):
        return f"{place}: unknown setting {key!r}; known: {sorted(_field_hints(owner))}"
    if problem["type"] in ("missing", "missing_argument"):
        return f"{place}: {key} is missing"
    allowed = _scalar_types(_field_hints(owner).get(str(key))) if _has_fields(owner) else ()
    if allowed and problem["type"] in ("int_type", "float_type", "bool_type", "string_type"):
        value = problem["input"]
        expected = " or ".join(TYPE_WORDS.get(option, "null") for option in allowed)
        return f"{place}: {key} is {value!r}, not {expected}{number_as_text_hint(value)}"
    if problem["type"] == "literal_error":
        return f"{place}: {key} is {problem['input']!r}, not {problem['ctx']['expected']}"
    return f"{place}: {key}: {problem['msg']}" if loc else f"{place}: {problem['msg']}"


def _owner(cls: type, loc: tuple) -> Any:
    """The type that holds the last key of ``loc`` (pydantic's location in an entry of
    ``cls``): a dataclass, or a mapping or sequence of them."""
    hint: Any = cls
    for key in loc[:-1]:
        if _has_fields(hint):
            hint = _field_hints(hint).get(key, Any)
        else:
            arguments = typing.get_args(hint)
            hint = arguments[-1] if arguments else Any
        hint = next((option for option in _options(hint) if option is not type(None)), Any)
    return hint


def _place(cls: type, owner: Any, loc: tuple, where: str) -> str:
    """Where the last key of ``loc`` is: the config section a nested dataclass is an entry
    of (its ``SECTION``), else ``where`` with the keys above it."""
    section = getattr(owner, "SECTION", None)
    if owner is not cls and section:
        return section
    above = ".".join(str(key) for key in loc[:-1])
    return f"{where}.{above}" if above else where


def _has_fields(hint: Any) -> bool:
    """Whether ``hint`` is a class of named fields: a dataclass or a TypedDict."""
    return is_dataclass(hint) or is_typeddict(hint)


def _field_hints(cls: type) -> dict[str, Any]:
    """The resolved annotations of dataclass or TypedDict ``cls``'s fields."""
    hints = typing.get_type_hints(cls, include_extras=False)
    if is_dataclass(cls):
        return {item.name: hints[item.name] for item in fields(cls)}
    return hints


def _options(hint: Any) -> tuple[Any, ...]:
    """The types of a union ``hint``; ``(hint,)`` for any other."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return typing.get_args(hint)
    return (hint,)


def _scalar_types(hint: Any) -> tuple[type, ...]:
    """The types a value annotated ``hint`` may have, when all are scalars; else ()."""
    options = _options(hint)
    scalars = (bool, int, float, str, type(None))
    return options if all(option in scalars for option in options) else ()


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


def number_as_text_hint(value: Any) -> str:
    """How to write a number that YAML read as text (``value``, a text that reads as a
    number); empty for any other value."""
    if not isinstance(value, str):
        return ""
    try:
        float(value)
    except ValueError:
        return ""
    mantissa, _, exponent = value.lower().partition("e")
    if exponent:  # YAML 1.1's float needs a dot in the mantissa and a signed exponent
        dot = "" if "." in mantissa else ".0"
        sign = "" if exponent[0] in "+-" else "+"
        value_written = f"{mantissa}{dot}e{sign}{exponent}"
    else:
        value_written = value
    return f" (YAML reads {value} as text: write {value_written}, unquoted)"


# Transitional: the sections not yet parsed by ``parse_entry`` check their keys with this
# (removed when the last one is converted).
def check_known_keys(where: str, entry: Mapping[str, Any], known: Iterable[str]) -> None:
    """Raise, naming the key, if ``entry`` (config section ``where``) holds a key not in
    ``known``."""
    known = set(known)
    unknown = sorted(set(entry) - known)
    if unknown:
        raise ValueError(f"{where}: unknown setting {unknown[0]!r}; known: {sorted(known)}")
