"""A distillation entry's method options parsed and checked against its method, defaults
filled in (light: no torch, so the DAG checks every entry before any job runs). The methods
and their options are declared in ``biocompact.distillation_methods``; ``objectives.py``
implements them.

The schema fills an entry's unset options with null (``{}`` for ``alpha``), so a method's
defaults come from its declaration.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from biocompact.distillation_methods import DISTILLATION_METHODS

# of a config entry: the options any method reads, then the sections of those that have one
OPTION_KEYS = ("alpha", "temperature", "layer_map") + tuple(
    name for name, method in DISTILLATION_METHODS.items() if method.section
)


# the loss terms computed on the student's MLM logits: a run that weights none of them
# (MiniLMv2's attention relations) leaves the MLM head as it was initialised
MLM_HEAD_TERMS = ("mlm", "soft", "output")


def trains_mlm_head(alpha: Mapping[str, Any]) -> bool:
    """Whether a distillation run with these loss weights (eval.json's ``alpha``, defaults
    filled in) trains the student's MLM head."""
    return any(alpha.get(term, 0) > 0 for term in MLM_HEAD_TERMS)


def set_options(entry: Mapping[str, Any]) -> dict[str, Any]:
    """The method options ``entry`` sets: those of ``OPTION_KEYS`` neither null nor empty
    (a section keeps its keys that are not null)."""
    chosen = {}
    for key in OPTION_KEYS:
        value = entry.get(key)
        if isinstance(value, Mapping):
            value = {name: item for name, item in value.items() if item is not None} or None
        if value is not None:
            chosen[key] = value
    return chosen


@dataclass(frozen=True)
class DistillationOptions:
    """One student's method options, parsed and checked once (``method_options``): every loss
    weight and the temperature at the method's defaults where the entry leaves them unset;
    the layer map and the options of the method's own section as set (those unset: the
    objective resolves them from the two models' layers)."""

    method: str
    alpha: Mapping[str, Any]  # loss term -> weight (``layer``: a number or one per layer)
    temperature: float | None = None  # None: the method uses none
    layer_map: list[int] | None = None  # teacher layer of each student layer
    section: Mapping[str, Any] = field(default_factory=dict)  # its section's options set


def method_options(
    method: str, entry: Mapping[str, Any] | None = None, where: str = ""
) -> DistillationOptions:
    """The options of ``method`` that ``entry`` (a distillation entry, or its options alone)
    sets, checked against the method and with its defaults filled in; ``where`` (the config
    key of the entry) prefixes an error."""
    try:
        if method not in DISTILLATION_METHODS:
            raise ValueError(
                f"unknown distillation method {method!r}; known: {sorted(DISTILLATION_METHODS)}"
            )
        spec = DISTILLATION_METHODS[method]
        options = set_options(entry or {})
        spec.check(options)
    except ValueError as error:
        raise ValueError(f"{where}: {error}" if where else str(error)) from None
    return DistillationOptions(
        method=method,
        alpha={**spec.alpha, **options.get("alpha", {})},
        temperature=options.get("temperature", spec.temperature),
        layer_map=options.get("layer_map"),
        section=options.get(method, {}),
    )
