"""A distillation entry's method options parsed and checked against its method, defaults
filled in (light: no torch, so the DAG checks every entry before any job runs). The methods
and their options are declared in ``biocompact.distillation_methods``; ``objectives.py``
implements them.

The entry's options as written are ``MethodOptions``' fields (the schema's): unset, they are
null (``{}`` for ``alpha``), so a method's defaults come from its declaration.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Annotated, Any

from pydantic import Field, WithJsonSchema, with_config
from typing_extensions import TypedDict

from biocompact.distillation_methods import DISTILLATION_METHODS
from biocompact.entries import ENTRY

# of a config entry: the options any method reads, then the sections of those that have one
OPTION_KEYS = ("alpha", "temperature", "layer_map") + tuple(
    name for name, method in DISTILLATION_METHODS.items() if method.section
)


Weight = Annotated[float, Field(ge=0)]
# a loss term's weight as an entry sets it: one number, or for ``layer`` one per student layer
LossWeight = float | list[float]


@with_config(ENTRY)
class LossWeights(TypedDict, total=False):
    """weights of the method's loss terms (a term of another method is an error), missing ones
    at the method's default"""

    mlm: Weight
    soft: Weight
    align: Weight
    embedding: Weight
    layer: Annotated[
        Weight | list[Weight],
        WithJsonSchema(
            {"type": ["number", "array"], "minimum": 0, "items": {"type": "number", "minimum": 0}}
        ),
    ]
    """one weight, or one per student layer"""
    output: Weight
    qq: Weight
    """minilmv2: the query-query relation KL"""
    kk: Weight
    """minilmv2: the key-key relation KL"""
    vv: Weight
    """minilmv2: the value-value relation KL"""


@dataclass(frozen=True)
class MiniLMv2Options:
    """options of the minilmv2 method only (Wang et al. 2021; docs/distillation.md; set for
    another method, an error); the student's last layer is always the one distilled"""

    __pydantic_config__ = ENTRY

    relation_heads: Annotated[int, Field(ge=1)] | None = None
    """relation heads the concatenated queries, keys and values of both models are split into
    (must divide both widths); null: the paper's 48 for a teacher of up to 12 layers, 64 for a
    deeper one"""
    teacher_layer: Annotated[int, Field(ge=1)] | None = None
    """teacher layer (1..N) whose relations are distilled; null: the paper's choice, the last
    layer of a teacher of up to 12 layers, else round(21 N / 24) (BERT-large: 21 of 24)"""


@dataclass(frozen=True, kw_only=True)
class MethodOptions:
    """A distillation entry's method options as written (``OPTION_KEYS``), before they are
    checked against its method and its defaults filled in (``method_options``)."""

    __pydantic_config__ = ENTRY

    temperature: Annotated[float, Field(gt=0)] | None = None
    """of the soft targets of the methods that read the teacher's MLM logits; null: the
    method's default; an error for a method that uses none"""
    alpha: LossWeights = field(default_factory=LossWeights)
    layer_map: list[Annotated[int, Field(ge=1)]] | None = None
    """the layer-wise methods only (an error for the others): teacher layer (1..N) for each
    student layer 1..M; null: uniform, g(l) = ceil(l N / M)"""
    minilmv2: MiniLMv2Options = MiniLMv2Options()

    def written_options(self) -> dict[str, Any]:
        """The options as an entry holds them (a section as a mapping)."""
        options = {item.name: getattr(self, item.name) for item in fields(MethodOptions)}
        return {**options, "minilmv2": asdict(self.minilmv2)}


# the loss terms computed on the student's MLM logits: a run that weights none of them
# (MiniLMv2's attention relations) leaves the MLM head as it was initialised
MLM_HEAD_TERMS = ("mlm", "soft", "output")


def trains_mlm_head(alpha: Mapping[str, LossWeight]) -> bool:
    """Whether a distillation run with these loss weights (eval.json's ``alpha``, defaults
    filled in) trains the student's MLM head."""
    return any(_weighted(alpha.get(term, 0.0)) for term in MLM_HEAD_TERMS)


def _weighted(weight: LossWeight) -> bool:
    """Whether a loss term with this weight counts (one per layer: any layer's does)."""
    return any(layer > 0 for layer in weight) if isinstance(weight, list) else weight > 0


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
    alpha: Mapping[str, LossWeight]  # loss term -> weight
    temperature: float | None = None  # None: the method uses none
    layer_map: list[int] | None = None  # teacher layer of each student layer
    section: Mapping[str, int] = field(default_factory=dict)  # its section's options set


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
