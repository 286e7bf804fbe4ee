"""The options each distillation method reads, their defaults and their check (light: no
torch, so the DAG checks every entry before any job runs; ``objectives.py`` implements the
methods).

A config entry's method options are ``alpha``, ``temperature``, ``layer_map`` and a
section named after a method (``minilmv2``); the schema fills the unset ones with null
(``{}`` for ``alpha``), so a method's defaults live here, and an option the method does not
read is an error naming the option and the method.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

OPTION_KEYS = ("alpha", "temperature", "layer_map", "minilmv2")  # of a config entry
DEFAULT_METHOD = "distilbert"


@dataclass(frozen=True)
class MethodOptions:
    """What one method reads beside its student and teacher."""

    name: str
    alpha: Mapping[str, float]  # its loss terms and their default weights
    temperature: float | None = None  # its default temperature; None: it uses none
    # layer-to-layer terms through ``layer_map`` (Rohanian et al. 2023, eq. 5)
    layer_wise: bool = False
    section: tuple[str, ...] = ()  # the keys of its own section, ``distillation.NAME.<name>``

    @property
    def options(self) -> tuple[str, ...]:
        """The entry keys the method reads."""
        return (
            ("alpha",)
            + ("temperature",) * (self.temperature is not None)
            + ("layer_map",) * self.layer_wise
            + (self.name,) * bool(self.section)
        )

    def check(self, options: Mapping[str, Any]) -> None:
        """Raise, naming the option and the method, unless every one of ``options`` (those
        set) is read by the method: alpha only its loss terms, its section only its keys."""
        for option in options:
            if option not in self.options:
                key = option
                if isinstance(options[option], Mapping) and options[option]:
                    key = f"{option}.{sorted(options[option])[0]}"
                raise ValueError(
                    f"{key} is not an option of method {self.name!r} "
                    f"(its options: {', '.join(self.options)})"
                )
        unknown = sorted(set(options.get("alpha", {})) - set(self.alpha))
        if unknown:
            raise ValueError(
                f"alpha.{unknown[0]} is not a loss term of the {self.name} method; "
                f"its terms are {sorted(self.alpha)}"
            )
        unknown = sorted(set(options.get(self.name, {})) - set(self.section))
        if unknown:
            raise ValueError(
                f"{self.name}.{unknown[0]} is not an option of the {self.name} method; "
                f"its options are {list(self.section)}"
            )


METHOD_OPTIONS: dict[str, MethodOptions] = {
    spec.name: spec
    for spec in (
        MethodOptions("distilbert", {"mlm": 2.0, "soft": 5.0, "align": 1.0}, temperature=2.0),
        MethodOptions(
            "tinybert",
            {"embedding": 1.0, "layer": 1.0, "output": 1.0},
            temperature=1.0,
            layer_wise=True,
        ),
        MethodOptions(
            "compact", {"mlm": 1.0, "soft": 5.0, "layer": 3.0}, temperature=2.0, layer_wise=True
        ),
        MethodOptions("lewis", {"mlm": 5.0, "soft": 2.0, "align": 1.0}, temperature=2.0),
        MethodOptions("mlm", {"mlm": 1.0}),
        MethodOptions(
            "minilmv2",
            {"qq": 1.0, "kk": 1.0, "vv": 1.0},
            section=("relation_heads", "teacher_layer"),
        ),
    )
}


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
    the layer map and MiniLMv2's relation heads and teacher layer as set (None: the
    objective resolves them from the two models' layers)."""

    method: str
    alpha: Mapping[str, Any]  # loss term -> weight (``layer``: a number or one per layer)
    temperature: float | None = None  # None: the method uses none
    layer_map: list[int] | None = None  # teacher layer of each student layer
    relation_heads: int | None = None  # minilmv2
    teacher_layer: int | None = None  # minilmv2


def method_options(
    method: str, entry: Mapping[str, Any] | None = None, where: str = ""
) -> DistillationOptions:
    """The options of ``method`` that ``entry`` (a distillation entry, or its options alone)
    sets, checked against the method and with its defaults filled in; ``where`` (the config
    key of the entry) prefixes an error."""
    try:
        if method not in METHOD_OPTIONS:
            raise ValueError(
                f"unknown distillation method {method!r}; known: {sorted(METHOD_OPTIONS)}"
            )
        spec = METHOD_OPTIONS[method]
        options = set_options(entry or {})
        spec.check(options)
    except ValueError as error:
        raise ValueError(f"{where}: {error}" if where else str(error)) from None
    section = options.get(method, {})
    return DistillationOptions(
        method=method,
        alpha={**spec.alpha, **options.get("alpha", {})},
        temperature=options.get("temperature", spec.temperature),
        layer_map=options.get("layer_map"),
        relation_heads=section.get("relation_heads"),
        teacher_layer=section.get("teacher_layer"),
    )
