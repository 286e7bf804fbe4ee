"""``eval.json``: the record of a pretrained or distilled language model, written by its job
(``training.stage.train_and_publish``) and read by its model card and the report
(docs/outputs.md)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from biocompact.records.base import (
    field_names,
    field_values,
    read_record,
    refuse_unknown_keys,
    when_set,
    written_fields,
)


@dataclass(frozen=True)
class Pretraining:
    """How a pretrained model began and what trained it (an older record lacking one of
    these: its default)."""

    init: str = "scratch"  # scratch, or the checkpoint continued from
    family: str = "bert"
    objective: str = "mlm"

    def as_record(self) -> dict[str, Any]:
        return written_fields(self)


@dataclass(frozen=True, kw_only=True)
class Distillation:
    """Whose student a distilled model is and how it was distilled: the method's options
    as its objective read them (``temperature``, ``layer_map`` and ``minilmv2`` only for the
    methods that read them)."""

    teacher: str  # the teacher's portable location
    method: str
    student_init: str
    student_layers: list[int] | None  # teacher_layers: the layers kept (None: every other)
    temperature: float | None = when_set()
    alpha: dict[str, Any]  # loss term -> weight
    layer_map: list[int] | None = when_set()
    minilmv2: dict[str, int] | None = when_set()  # relation_heads, teacher_layer
    mlm_head_trained: bool  # whether a loss term reads the MLM logits

    def as_record(self) -> dict[str, Any]:
        return written_fields(self)


@dataclass(frozen=True, kw_only=True)
class ModelDescription:
    """What a language-model job records of its model before training it."""

    model: str
    origin: Pretraining | Distillation
    # the model's config.json fields that differ from defaults ({}: an older record's)
    architecture: dict[str, Any] = field(default_factory=dict)

    @property
    def distilled(self) -> bool:
        return isinstance(self.origin, Distillation)

    def as_record(self) -> dict[str, Any]:
        """The record's first keys (the tracked run's ``config`` parameter too)."""
        return {"model": self.model, **self.origin.as_record(), "architecture": self.architecture}

    @classmethod
    def from_record(cls, data: Mapping[str, Any]) -> ModelDescription:
        """The description in a record: a distilled model's when it names a teacher."""
        origin_class = Distillation if "teacher" in data else Pretraining
        return cls(
            origin=origin_class(**field_values(origin_class, data)),
            **field_values(cls, data, given={"origin"}),
        )

    def keys(self) -> set[str]:
        """The keys a record of this description may hold before the training's."""
        return (field_names(type(self)) | field_names(type(self.origin))) - {"origin"}


@dataclass(frozen=True, kw_only=True)
class LanguageModelRecord:
    """``eval.json``: the description, the training (optimizer steps, tokens seen, the
    training settings) and the held-out figures: the MLM loss and perplexity on the held-out
    split's masked tokens and the fill-mask probes, with each objective's own figures
    (ELECTRA: of the generator, whose MLM head the figures are, beside the discriminator's
    parameters; NSP and sentence order: the pair accuracy)."""

    description: ModelDescription
    steps: int
    train_tokens: int
    # the training settings (training.settings.TrainingSettings; {}: an older record's)
    training: dict[str, Any] = field(default_factory=dict)
    parameters: int
    heldout_loss: float
    perplexity: float
    heldout_tokens: int
    fill_mask: list[dict[str, Any]]  # per probe: text, answer, predictions (token, score)
    generator_parameters: int | None = when_set()
    heldout_model: str | None = when_set()  # the model the held-out figures are of
    replaced_token_accuracy: float | None = when_set()
    next_sentence_accuracy: float | None = when_set()
    sentence_order_accuracy: float | None = when_set()

    def as_record(self) -> dict[str, Any]:
        """The record as ``eval.json`` holds it."""
        figures = written_fields(self)
        del figures["description"]
        return {**self.description.as_record(), **figures}

    @classmethod
    def from_record(cls, data: Mapping[str, Any]) -> LanguageModelRecord:
        """The record of ``eval.json``'s content; a key it does not know raises a
        ValueError."""
        description = ModelDescription.from_record(data)
        figures = field_values(cls, data, given={"description"})
        refuse_unknown_keys(
            data,
            description.keys() | field_names(cls),
            f"{description.origin.__class__.__name__} record",
        )
        return cls(description=description, **figures)

    @classmethod
    def read(cls, path: str | os.PathLike) -> LanguageModelRecord:
        """The record in ``path``; a malformed one raises a ValueError naming the file."""
        return read_record(path, cls.from_record, "language model record (eval.json)")
