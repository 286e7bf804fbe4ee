"""Config entries parsed into frozen dataclasses: the checks every ``from_entry`` shares,
written once (a key the dataclass does not have; a value of the wrong type).

The type check matters where the schema cannot type a value (overrides such as a task's
``hyperparameters``): YAML 1.1, which PyYAML reads, takes ``2e-4`` for text (a float needs a
dot: ``2.0e-4``), and a learning rate that is text would otherwise fail deep in a training
job instead of when the DAG is built.
"""

from __future__ import annotations

import functools
import types
import typing
from collections.abc import Iterable, Mapping
from dataclasses import fields
from typing import Any, TypeVar

Entry = TypeVar("Entry")
# The scalar types checked; a field annotated otherwise (a mapping, a tuple) is left alone.
SCALARS = (bool, int, float, str, type(None))


def check_known_keys(where: str, entry: Mapping[str, Any], known: Iterable[str]) -> None:
    """Raise, naming the key, if ``entry`` (config section ``where``) holds a key not in
    ``known``."""
    known = set(known)
    unknown = sorted(set(entry) - known)
    if unknown:
        raise ValueError(f"{where}: unknown setting {unknown[0]!r}; known: {sorted(known)}")


def check_entry(
    where: str, entry: Mapping[str, Any], cls: type, *, not_keys: Iterable[str] = ()
) -> None:
    """Check ``entry`` against dataclass ``cls``: every key a field (but ``not_keys``), every
    value of a scalar field of its annotated type (an int where a float is expected; never
    a bool for a number)."""
    check_known_keys(where, entry, {item.name for item in fields(cls)} - set(not_keys))
    allowed_types = _field_scalar_types(cls)
    for key, value in entry.items():
        allowed = allowed_types[key]
        if allowed and not _is_instance(value, allowed):
            raise ValueError(
                f"{where}: {key} is {value!r}, not {_names(allowed)}{number_as_text_hint(value)}"
            )


def parse_entry(cls: type[Entry], entry: Mapping[str, Any], where: str) -> Entry:
    """``entry`` as dataclass ``cls``, checked by ``check_entry`` (errors name ``where``);
    a list (YAML's, JSON's) becomes a tuple where ``cls`` declares one."""
    check_entry(where, entry, cls)
    hints = typing.get_type_hints(cls)
    return cls(
        **{
            key: tuple(value) if isinstance(value, list) and _takes_tuple(hints[key]) else value
            for key, value in entry.items()
        }
    )


def _takes_tuple(hint: Any) -> bool:
    """Whether ``hint`` is a tuple type, or a union holding one (``tuple[str, ...] | None``)."""
    return any(typing.get_origin(option) is tuple for option in _options(hint))


def _options(hint: Any) -> tuple[Any, ...]:
    """The types of a union ``hint``; ``(hint,)`` for any other."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return typing.get_args(hint)
    return (hint,)


@functools.cache
def _field_scalar_types(cls: type) -> dict[str, tuple[type, ...]]:
    """``_scalar_types`` of each field of dataclass ``cls`` (resolved once per class: the
    workflow parses a task's entry for every job when it builds the DAG)."""
    return {name: _scalar_types(hint) for name, hint in typing.get_type_hints(cls).items()}


def _scalar_types(hint: Any) -> tuple[type, ...]:
    """The types a value annotated ``hint`` may have, when all are scalars; else ()."""
    options = _options(hint)
    return options if all(option in SCALARS for option in options) else ()


def _is_instance(value: Any, allowed: tuple[type, ...]) -> bool:
    if isinstance(value, bool):  # a bool is an int to Python, never a number in a config
        return bool in allowed
    if isinstance(value, int) and float in allowed:
        return True
    return isinstance(value, allowed)


def _names(allowed: tuple[type, ...]) -> str:
    words = {bool: "true or false", int: "an integer", float: "a number", str: "text"}
    return " or ".join(words.get(kind, "null") for kind in allowed)


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
