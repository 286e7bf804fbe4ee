"""One entry of the config's ``distillation`` section, parsed once into checked settings.

The rule passes the whole entry (``params.settings``); the schema documents every field
and fills in its default. A new option of a method is a schema property, a field here and
the code that reads it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from biocompact.distillation.objectives import METHODS
from biocompact.training.entry import check_known_keys, split_training
from biocompact.training.loop import TrainingSettings


@dataclass(frozen=True)
class DistillationSettings:
    """How one student is distilled: method, student initialisation, loss options, training."""

    teacher: str  # a model of the config (its folder reaches the job as an input)
    training: TrainingSettings
    method: str = "distilbert"
    # teacher_layers, random, or a checkpoint (a model of the config: its folder)
    student_init: str = "teacher_layers"
    student_layers: list[int] | None = None  # teacher_layers: the layers kept (None: every other)
    student_architecture: dict[str, Any] | None = None  # random: preset and/or config fields
    temperature: float | None = None  # None: the method's default
    alpha: dict[str, float | list[float]] = field(default_factory=dict)  # loss-term weights
    layer_map: list[int] | None = None  # layer-wise methods: teacher layer of each student layer
    # minilmv2: relation_heads, teacher_layer (None or absent: the paper's choice)
    minilmv2: dict[str, int | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ValueError(
                f"unknown distillation method {self.method!r}; known: {sorted(METHODS)}"
            )
        # the schema fills in unset options as None: keep only those set
        chosen = {name: value for name, value in self.minilmv2.items() if value is not None}
        object.__setattr__(self, "minilmv2", chosen)
        METHODS[self.method].check_options(self.alpha, self.layer_map, self.minilmv2)
        if self.student_layers is not None and self.student_init != "teacher_layers":
            raise ValueError(
                "student_layers is used with student_init teacher_layers only, "
                f"not {self.student_init!r}"
            )
        if self.student_architecture and self.student_init != "random":
            raise ValueError(
                "student_architecture is used with student_init random only, "
                f"not {self.student_init!r}"
            )

    @classmethod
    def from_entry(cls, entry: Mapping[str, Any]) -> DistillationSettings:
        """Parse and check one ``distillation`` entry (as validated by the schema)."""
        training, rest = split_training(entry)
        check_known_keys("distillation", rest, {item.name for item in fields(cls)} - {"training"})
        return cls(training=training, **rest)
