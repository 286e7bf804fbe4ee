"""A pretraining or distillation config entry split into its optimisation settings and the rest."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import Any

from biocompact.training.loop import TrainingSettings

TRAINING_KEYS = frozenset(field.name for field in fields(TrainingSettings))


def split_training(entry: Mapping[str, Any]) -> tuple[TrainingSettings, dict[str, Any]]:
    """The entry's ``TrainingSettings`` (the schema's shared training keys) and its other keys."""
    training = TrainingSettings(**{key: entry[key] for key in TRAINING_KEYS if key in entry})
    return training, {key: value for key, value in entry.items() if key not in TRAINING_KEYS}
