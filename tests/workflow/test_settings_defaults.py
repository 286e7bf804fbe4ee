"""Every default in one place: where a settings dataclass and the config schema both give an
option a default, they are the same value (the schema fills a validated config; a job, a
test or a benchmark that builds the dataclass without the schema gets the field's)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
import yaml

from biocompact.compression.settings import CompressionSettings
from biocompact.corpus.decontamination import DecontaminationSettings
from biocompact.distillation.settings import DistillationSettings
from biocompact.pretraining.settings import PretrainingSettings
from biocompact.release.settings import CardSettings
from biocompact.task_distillation.settings import (
    ExperimentSettings,
    RandomisedSettings,
    TransferSetSettings,
)
from biocompact.taskfiles.settings import FinetuningTask, Hyperparameters
from biocompact.tracking.trackers import TrackingSettings
from biocompact.training.settings import MaskingSettings, TrainingSettings
from biocompact.vocab.settings import VocabularySettings

SCHEMA = yaml.safe_load(
    (Path(__file__).resolve().parents[2] / "workflow/schemas/config.schema.yaml").read_text()
)

# The schema's object (a path of property names; "*" for an entry of a named map) -> the
# dataclass its entries are parsed into.
SECTIONS = [
    (("decontamination",), DecontaminationSettings),
    (("masking",), MaskingSettings),
    (("vocabularies", "*"), VocabularySettings),
    (("pretraining", "*"), PretrainingSettings),
    (("pretraining", "*"), TrainingSettings),
    (("distillation", "*"), DistillationSettings),
    (("distillation", "*"), TrainingSettings),
    (("model_cards",), CardSettings),
    (("tracking",), TrackingSettings),
    (("finetuning", "presets", "*"), Hyperparameters),
    (("finetuning", "tasks", "*"), FinetuningTask),
    (("task_distillation", "transfer_sets", "*"), TransferSetSettings),
    (("task_distillation", "transfer_sets", "*", "randomised"), RandomisedSettings),
    (("task_distillation", "experiments", "*"), ExperimentSettings),
    (("compression",), CompressionSettings),
]


# Options whose field holds what the schema's value resolves to, not the value itself.
RESOLVED = {
    # the resolved Hyperparameters: the task's `hyperparameters` overrides merged into its preset
    (FinetuningTask, "hyperparameters"),
}


def _resolved(node: dict[str, Any]) -> dict[str, Any]:
    """``node`` with its ``$ref`` (to the schema's definitions) and ``allOf`` merged in."""
    if "$ref" in node:  # "#/$defs/NAME"
        _, group, name = node["$ref"].split("/")
        node = {**_resolved(SCHEMA[group][name]), **node}
    properties = dict(node.get("properties", {}))
    for part in node.get("allOf", []):
        properties.update(_resolved(part).get("properties", {}))
    return {**node, "properties": properties}


def _section(path: tuple[str, ...]) -> dict[str, Any]:
    node = _resolved(SCHEMA)
    for key in path:
        node = _resolved(node["additionalProperties"] if key == "*" else node["properties"][key])
    return node["properties"]


def _field_defaults(cls: type) -> dict[str, Any]:
    """Each field of ``cls`` that has a default, with it as the schema writes it."""
    return {
        field.name: _as_yaml(
            field.default_factory()
            if field.default_factory is not dataclasses.MISSING
            else field.default
        )
        for field in dataclasses.fields(cls)
        if field.default is not dataclasses.MISSING
        or field.default_factory is not dataclasses.MISSING
    }


def _as_yaml(value: Any) -> Any:
    """``value`` as the schema writes it: a tuple as a list, an entry of its class's defaults
    as {} (``schema_generation.ConfigStyle``)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        plain = dataclasses.asdict(value)
        return {} if _field_defaults(type(value)) == plain else plain
    return list(value) if isinstance(value, tuple) else value


@pytest.mark.parametrize(
    ("path", "cls"), SECTIONS, ids=[f"{'.'.join(p)}-{c.__name__}" for p, c in SECTIONS]
)
def test_the_schema_and_the_settings_class_give_the_same_defaults(path, cls):
    properties = _section(path)
    both = {
        name: (properties[name]["default"], default)
        for name, default in _field_defaults(cls).items()
        if name in properties and "default" in properties[name] and (cls, name) not in RESOLVED
    }
    assert both, f"{cls.__name__} shares no default with the schema at {'.'.join(path)}"
    differing = {name: pair for name, pair in both.items() if pair[0] != pair[1]}
    assert not differing, f"(schema, {cls.__name__}) defaults differ: {differing}"
