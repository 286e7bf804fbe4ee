"""The distillation methods, each declared once: the options it reads and their defaults,
the objective that implements it, and what its model card says of it.

Everything else that names the methods is derived from ``DISTILLATION_METHODS``: the options
an entry may set (``distillation.methods``), the objectives' dispatch
(``distillation.objectives.METHODS``), the methods that need a teacher's MLM head
(``distillation.teacher_head``), the schema's ``method`` enum and default
(``workflow.config_schema``) and the cards' text (``release.cards``). Light and at the
package's top, importing nothing of it: the DAG checks, the cards (beneath the distillation
stage, which writes them) and the stage itself read it.

A config entry's method options are ``alpha``, ``temperature``, ``layer_map`` and a section
named after a method (``minilmv2``); an option the method does not read is an error naming
the option and the method.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

DEFAULT_METHOD = "distilbert"


@dataclass(frozen=True)
class DistillationMethod:
    """One distillation method: what it reads beside its student and teacher, its objective
    and its model card's line."""

    name: str
    objective: str  # its class in ``distillation/objectives.py``
    card: str  # what the method is, on the card of a model distilled with it
    citation: str  # its paper: a key of ``release.cards.CITATIONS``
    alpha: Mapping[str, float]  # its loss terms and their default weights
    temperature: float | None = None  # its default temperature; None: it uses none
    # layer-to-layer terms through ``layer_map`` (Rohanian et al. 2023, eq. 5)
    layer_wise: bool = False
    section: tuple[str, ...] = ()  # the keys of its own section, ``distillation.NAME.<name>``

    @property
    def reads_teacher_logits(self) -> bool:
        """Whether its losses read the teacher's MLM logits: those of the methods with a
        temperature, which softens them (soft targets, soft labels, TinyBERT's output term)."""
        return self.temperature is not None

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


# in the order of the schema's enum, which its messages quote
DISTILLATION_METHODS: dict[str, DistillationMethod] = {
    method.name: method
    for method in (
        DistillationMethod(
            "distilbert",
            objective="DistilBertObjective",
            card="DistilBioBERT: MLM, soft-label KL and hidden-state alignment",
            citation="rohanian2023",
            alpha={"mlm": 2.0, "soft": 5.0, "align": 1.0},
            temperature=2.0,
        ),
        DistillationMethod(
            "tinybert",
            objective="TinyBertObjective",
            card="TinyBioBERT: embedding, hidden-state, attention and output losses",
            citation="rohanian2023",
            alpha={"embedding": 1.0, "layer": 1.0, "output": 1.0},
            temperature=1.0,
            layer_wise=True,
        ),
        DistillationMethod(
            "compact",
            objective="CompactObjective",
            card="CompactBioBERT: MLM, soft labels, hidden states and attention",
            citation="rohanian2023",
            alpha={"mlm": 1.0, "soft": 5.0, "layer": 3.0},
            temperature=2.0,
            layer_wise=True,
        ),
        DistillationMethod(
            "lewis",
            objective="LargeToBaseObjective",
            card="large-to-base distillation (Lewis et al. 2020, section 7)",
            citation="lewis2020",
            alpha={"mlm": 5.0, "soft": 2.0, "align": 1.0},
            temperature=2.0,
        ),
        DistillationMethod(
            "mlm",
            objective="PlainMlmObjective",
            card="plain MLM on the student alone (the teacher only initialises it)",
            citation="devlin2019",
            alpha={"mlm": 1.0},
        ),
        DistillationMethod(
            "minilmv2",
            objective="MiniLMv2Objective",
            card="MiniLMv2: self-attention relation distillation",
            citation="wang2021",
            alpha={"qq": 1.0, "kk": 1.0, "vv": 1.0},
            section=("relation_heads", "teacher_layer"),
        ),
    )
}
