"""What the report reads of the config, parsed once from the schema-validated config:
each pretrained model's vocabulary, each task's registered dataset and each fine-tuned
model's training text. Light: no torch and no tokenizers (the report's environment has
neither), so the vocabulary and pretraining entries are read here, not through their
stages' settings classes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from biocompact.locations import external_checkpoints


@dataclass(frozen=True)
class PretrainedVocabulary:
    """The vocabulary a model of ``pretraining`` trains with: its name in ``vocabularies``
    and its type (wordpiece, bpe...)."""

    name: str
    type: str


@dataclass(frozen=True)
class FinetunedModel:
    """A model of ``finetuning.models``: whether this workflow pretrained or distilled it
    (else it is one of ``external_models``) and the checkpoints not built here whose
    pretraining text it carries."""

    name: str
    built_here: bool
    external_checkpoints: tuple[str, ...]


@dataclass(frozen=True)
class ReportSettings:
    """The config's facts the report shows; empty where the report has no config."""

    vocabularies: Mapping[str, PretrainedVocabulary] = field(default_factory=dict)
    task_datasets: Mapping[str, str] = field(default_factory=dict)  # for tasks that name one
    finetuned_models: tuple[FinetunedModel, ...] = ()

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> ReportSettings:
        """The facts of ``config``, validated by the schema (its sections and defaults
        filled in) and by the config checks (a pretraining vocabulary is configured)."""
        return cls(
            vocabularies={
                model: PretrainedVocabulary(
                    entry["vocabulary"], config["vocabularies"][entry["vocabulary"]]["type"]
                )
                for model, entry in config["pretraining"].items()
            },
            task_datasets={
                task: entry["dataset"]
                for task, entry in config["finetuning"]["tasks"].items()
                if entry["dataset"]
            },
            finetuned_models=tuple(
                FinetunedModel(
                    model,
                    built_here=model not in config["external_models"],
                    external_checkpoints=tuple(external_checkpoints(model, config)),
                )
                for model in config["finetuning"]["models"]
            ),
        )
