"""One entry of the config's ``distillation`` section, parsed once into checked settings.

The rule passes the whole entry (``params.settings``); the schema documents every field
and fills in its default. A new option of a method is a schema property, an entry of its
``DistillationMethod`` (``biocompact.distillation_methods``, with its default) and the code
that reads it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from biocompact.distillation.methods import OPTION_KEYS, DistillationOptions, method_options
from biocompact.distillation_methods import DEFAULT_METHOD
from biocompact.entries import check_known_keys
from biocompact.training.entry import split_training
from biocompact.training.loop import TrainingSettings


@dataclass(frozen=True)
class DistillationSettings:
    """How one student is distilled: method, its options, student initialisation, training."""

    teacher: str  # a model of the config (its folder reaches the job as an input)
    training: TrainingSettings
    method: str = DEFAULT_METHOD
    # teacher_layers, random, or a checkpoint (a model of the config: its folder)
    student_init: str = "teacher_layers"
    student_layers: list[int] | None = None  # teacher_layers: the layers kept (None: every other)
    student_architecture: dict[str, Any] | None = None  # random: preset and/or config fields
    # the method's options (alpha, temperature, layer_map, its own section), its defaults
    # filled in (biocompact.distillation_methods); from_entry refuses one it does not read
    options: DistillationOptions = field(default_factory=lambda: method_options(DEFAULT_METHOD))

    def __post_init__(self) -> None:
        if self.options.method != self.method:
            raise ValueError(
                f"options of method {self.options.method!r} for method {self.method!r}"
            )
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
        known = {item.name for item in fields(cls)} - {"training", "options"} | set(OPTION_KEYS)
        check_known_keys("distillation", rest, known)
        # the schema fills in unset options as null: only those set are read
        options = {key: rest.pop(key) for key in OPTION_KEYS if key in rest}
        method = rest.get("method", DEFAULT_METHOD)
        return cls(training=training, options=method_options(method, options), **rest)
