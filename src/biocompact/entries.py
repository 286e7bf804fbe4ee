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

import dataclasses
import functools
import types
import typing
from collections.abc import Mapping
from dataclasses import MISSING, fields, is_dataclass
from typing import Any, TypeVar

from pydantic import ConfigDict, TypeAdapter, ValidationError
from pydantic_core import SchemaValidator, core_schema
from typing_extensions import is_typeddict

Entry = TypeVar("Entry")

# The settings of every entry class: unknown keys refused; each field's docstring is its
# description in the generated schema.
ENTRY = ConfigDict(extra="forbid", use_attribute_docstrings=True)
# Core-schema scalar types read strictly (``int`` refuses ``'7'`` and ``True``; ``float``
# refuses text and takes an int as it is: the config's ``epochs: 3`` stays 3 in the records
# and the names built from it).
STRICT_SCALARS = ("int", "float", "bool", "str")
TYPE_WORDS = {bool: "true or false", int: "an integer", float: "a number", str: "text"}


def parse_entry(cls: type[Entry], entry: Mapping[str, Any], where: str | None = None) -> Entry:
    """``entry`` as dataclass ``cls`` (nested dataclasses and tuples built from their
    mappings and lists); a ValueError names ``where`` (the rule, or by default the config
    section ``cls`` is an entry of, its ``SECTION``), the first bad key and what is wrong."""
    try:
        return validator(cls).validate_python(dict(entry))
    except ValidationError as error:
        place = where or str(getattr(cls, "SECTION", cls.__name__))
        raise ValueError(_message(cls, error.errors()[0], place)) from None


def parse_record(cls: type[Entry], data: Mapping[str, Any]) -> Entry:
    """A record (the JSON object of a file a job wrote) as dataclass ``cls``, read as
    strictly as an entry but for an int in a float field, which stays an int. A field's
    metadata ``FLAT`` says its dataclass's keys lie among the record's own, ``rest(what)``
    that it holds the record's keys that are no field; a field an older record lacks or holds
    as null takes its default. A ValueError says what the record lacks (``it lacks [...]``),
    the keys no dataclass of it has (``keys of no {RECORD}: [...]``, its ``RECORD`` attribute
    naming a dataclass, ``{key}`` where it lies), or the first other fault."""
    try:
        return validator(cls, record=True).validate_python(data)
    except ValidationError as error:
        raise ValueError(_record_message(cls, error.errors())) from None


LAYOUT = "record"  # the key of a record field's metadata that says where its keys lie
FLAT = {LAYOUT: "flat"}  # a field's metadata: its dataclass's keys lie among the record's


def rest(what: str) -> dict[str, str]:
    """A field's metadata: it holds the record's keys that are no field, each one of ``what``."""
    return {LAYOUT: "rest", "what": what}


def _record_values(cls: type, data: Any) -> Any:
    """``data``, a record's object, as the fields of dataclass ``cls`` hold it: the keys of
    a ``FLAT`` field moved into it, those that are no field into a ``rest`` field, a null
    where the default is not None dropped (an older record's: the default)."""
    if not isinstance(data, Mapping):
        return data
    defaulted = {item.name for item in fields(cls) if _has_default(item)}
    values = {
        key: value for key, value in data.items() if value is not None or key not in defaulted
    }
    for item in fields(cls):
        if item.metadata.get(LAYOUT) == "flat":
            keys = _record_keys(_field_hints(cls)[item.name])
            values[item.name] = {key: values.pop(key) for key in keys if key in values}
        elif item.metadata.get(LAYOUT) == "rest":
            known = _record_keys(cls) | {other.name for other in fields(cls)}  # FLAT ones too
            values[item.name] = {key: values.pop(key) for key in list(values) if key not in known}
    return values


def _has_default(item: dataclasses.Field) -> bool:
    """Whether dataclass field ``item`` has a default that is not None."""
    return item.default is not None and (
        item.default is not MISSING or item.default_factory is not MISSING
    )


def _record_keys(hint: Any) -> set[str]:
    """The keys of a record of dataclass (or union of dataclasses) ``hint``: its fields'
    names, a ``FLAT`` field's record keys in place of its own."""
    keys: set[str] = set()
    for option in _options(hint):
        for item in fields(option):
            flat = item.metadata.get(LAYOUT) == "flat"
            keys |= _record_keys(_field_hints(option)[item.name]) if flat else {item.name}
    return keys


def _record_message(cls: type, problems: list[Any]) -> str:
    """One line for pydantic's ``problems`` with a record of ``cls``: all the first one's
    kind at its place (fields lacking, unknown keys, keys of a ``rest`` field not of its
    kind), an object or a list of the wrong type, a check of the class's own in its words,
    else the value and pydantic's message."""
    first = problems[0]
    loc = tuple(first["loc"])
    above = loc[:-1]
    alike = [
        problem
        for problem in problems
        if problem["type"] == first["type"] and tuple(problem["loc"][:-1]) == above
    ]
    holder = _owner(cls, above) if above else None
    if is_dataclass(holder):
        layout: Mapping[str, Any] = {item.name: item.metadata for item in fields(holder)}.get(
            above[-1], {}
        )
        if layout.get(LAYOUT) == "rest":
            wrong = {problem["loc"][-1]: problem["input"] for problem in alike}
            return f"keys that are neither fields nor {layout['what']}: {wrong}"
    if first["type"] in ("missing", "missing_argument"):
        return f"it lacks {[problem['loc'][-1] for problem in alike]}"
    if first["type"] in ("unexpected_keyword_argument", "extra_forbidden"):
        keys = sorted(problem["loc"][-1] for problem in alike)
        return f"keys of no {_record_name(_owner(cls, loc), above)}: {keys}"
    if first["type"] in ("list_type", "dict_type", "dataclass_type"):
        name = _record_name(_owner(cls, (*loc, None)), loc) if loc else "record"
        return f"its {name} are not {'a list' if first['type'] == 'list_type' else 'an object'}"
    if first["type"] == "value_error":
        return str(first["ctx"]["error"])
    return f"its {'.'.join(map(str, loc))} is {first['input']!r}: {first['msg']}"


def _record_name(hint: Any, loc: tuple) -> str:
    """What a record's object at ``loc`` of type ``hint`` is called: a dataclass's ``RECORD``,
    its ``{key}`` the last key of ``loc``; else that key."""
    name = getattr(hint, "RECORD", None) if is_dataclass(hint) else None
    if name is None:
        return str(loc[-1]) if loc else "record"
    return name.format(key=loc[-1] if loc else "")


def validator(cls: type, *, record: bool = False) -> SchemaValidator:
    """The validator of dataclass ``cls`` (built once per class and flavour: the workflow
    parses a task's entry for every job when it builds the DAG): every scalar strict, every
    dataclass refusing keys it does not have, a whole number read into a ``float`` kept an
    int. ``record``: each dataclass read from a record's layout (``parse_record``)."""
    return _built_validator(cls, record)


@functools.cache
def _built_validator(cls: type, record: bool) -> SchemaValidator:
    return SchemaValidator(_adapted(TypeAdapter(cls).core_schema, record))


def _adapted(schema: Any, record: bool) -> Any:
    """``schema`` (a pydantic core schema) with every scalar of ``STRICT_SCALARS`` strict and
    every dataclass refusing keys it does not have, every float schema taking an int as it
    is; with ``record`` every dataclass schema reading its values through
    ``_record_values``."""
    if isinstance(schema, list):
        return [_adapted(item, record) for item in schema]
    if not isinstance(schema, dict):
        return schema
    schema = {key: _adapted(value, record) for key, value in schema.items()}
    kind = schema.get("type")
    if kind in STRICT_SCALARS:
        schema["strict"] = True
    if kind == "dataclass-args":
        schema["extra_behavior"] = "forbid"
    if kind == "float":
        return core_schema.no_info_wrap_validator_function(_int_as_given, schema)
    if kind == "dataclass" and record:
        ref = schema.pop("ref", None)  # a shared definition: the reader is what is referred to
        values = functools.partial(_record_values, schema["cls"])
        return core_schema.no_info_before_validator_function(values, schema, ref=ref)
    return schema


def _int_as_given(value: Any, validate: core_schema.ValidatorFunctionWrapHandler) -> Any:
    """A float field's value, checked (type and constraints) by ``validate``; an int kept an
    int, as its writer held it."""
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
        options = [option for option in _options(hint) if option is not type(None)]
        named = [option for option in options if getattr(option, "__name__", None) == key]
        if named:  # a union's member, which pydantic names in the location
            hint = named[0]
        elif options and _has_fields(options[0]):
            hint = _field_hints(options[0]).get(key, Any)
        else:
            arguments = typing.get_args(options[0]) if options else ()
            hint = arguments[-1] if arguments else Any
    return next((option for option in _options(hint) if option is not type(None)), Any)


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
