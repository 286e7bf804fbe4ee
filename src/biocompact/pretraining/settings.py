"""One entry of the config's ``pretraining`` section, parsed once into checked settings.

The rule passes the whole entry (``params.settings``, a plain dict: it travels to
torchrun's processes as JSON); the schema documents every field and fills in its default.
A new option is a schema property, a field here and the code that reads it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from biocompact.entries import check_known_keys
from biocompact.pretraining.objectives import objective_entry
from biocompact.training.entry import split_training
from biocompact.training.loop import TrainingSettings


@dataclass(frozen=True)
class PretrainingSettings:
    """How one model is pretrained: family, initialisation, objective and training."""

    vocabulary: str  # a vocabulary of the config (its tokenised corpus reaches the job as an input)
    training: TrainingSettings
    architecture: dict[str, Any] = field(
        default_factory=dict
    )  # scratch: preset and/or config fields
    init: str = "scratch"  # scratch, or a checkpoint folder, hub name or package path
    family: str = "bert"  # bert, roberta, electra, albert, modernbert
    objective: str | None = None  # None: the family's own
    electra: dict[str, Any] = field(default_factory=dict)  # options of the electra objective

    def __post_init__(self) -> None:
        objective_entry(self.objective, self.family)  # raises for an unknown or mismatched pair

    @classmethod
    def from_entry(cls, entry: Mapping[str, Any]) -> PretrainingSettings:
        """Parse and check one ``pretraining`` entry (as validated by the schema)."""
        training, rest = split_training(entry)
        check_known_keys("pretraining", rest, {item.name for item in fields(cls)} - {"training"})
        return cls(training=training, **rest)
