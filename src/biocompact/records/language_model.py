"""``eval.json``: the record of a pretrained or distilled language model, written by its job
(``training.stage.train_and_publish``) and read by its model card and the report
(docs/outputs.md)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import Discriminator, Tag

from biocompact.entries import FLAT
from biocompact.records.base import RecordFile, when_set


@dataclass(frozen=True)
class Pretraining:
    """How a pretrained model began and what trained it (an older record lacking one of
    these: its default)."""

    RECORD = "Pretraining record"

    init: str = "scratch"  # scratch, or the checkpoint continued from
    family: str = "bert"
    objective: str = "mlm"


@dataclass(frozen=True, kw_only=True)
class Distillation:
    """Whose student a distilled model is and how it was distilled: the method's options
    as its objective read them (``temperature``, ``layer_map`` and ``minilmv2`` only for the
    methods that read them)."""

    RECORD = "Distillation record"

    teacher: str  # the teacher's portable location
    method: str
    student_init: str
    student_layers: list[int] | None  # teacher_layers: the layers kept (None: every other)
    temperature: float | None = when_set()
    alpha: dict[str, float | list[float]]  # loss term -> weight (layer: one per layer)
    layer_map: list[int] | None = when_set()
    minilmv2: dict[str, int] | None = when_set()  # relation_heads, teacher_layer
    mlm_head_trained: bool  # whether a loss term reads the MLM logits


@dataclass(frozen=True, kw_only=True)
class Prediction:
    """One of a model's top predictions for a probe's mask: the token and its probability."""

    token: str
    score: float


@dataclass(frozen=True, kw_only=True)
class ProbeResult:
    """A fill-mask probe (its text with ``[MASK]`` and the expected answer) and the model's
    top predictions for its mask, most probable first."""

    RECORD = "fill-mask probe"

    text: str
    answer: str
    predictions: list[Prediction]


def _origin(values: Mapping[str, Any]) -> str:
    """The origin of a record's values: a distillation where they name a teacher."""
    return "Distillation" if "teacher" in values else "Pretraining"


@dataclass(frozen=True, kw_only=True)
class ModelDescription:
    """What a language-model job records of its model before training it."""

    model: str
    origin: Annotated[
        Annotated[Pretraining, Tag("Pretraining")] | Annotated[Distillation, Tag("Distillation")],
        Discriminator(_origin),
    ] = field(metadata=FLAT)
    # the model's config.json fields that differ from defaults ({}: an older record's)
    architecture: dict[str, Any] = field(default_factory=dict)

    @property
    def distilled(self) -> bool:
        return isinstance(self.origin, Distillation)


@dataclass(frozen=True, kw_only=True)
class LanguageModelRecord(RecordFile):
    """``eval.json``: the description, the training (optimizer steps, tokens seen, the
    training settings) and the held-out figures: the MLM loss and perplexity on the held-out
    split's masked tokens and the fill-mask probes, with each objective's own figures
    (ELECTRA: of the generator, whose MLM head the figures are, beside the discriminator's
    parameters; NSP and sentence order: the pair accuracy)."""

    FILE = "language model record (eval.json)"
    RECORD = "language model record"

    description: ModelDescription = field(metadata=FLAT)
    steps: int
    train_tokens: int
    # the training settings (training.settings.TrainingSettings; {}: an older record's)
    training: dict[str, Any] = field(default_factory=dict)
    parameters: int
    heldout_loss: float
    perplexity: float
    heldout_tokens: int
    fill_mask: list[ProbeResult]
    generator_parameters: int | None = when_set()
    heldout_model: str | None = when_set()  # the model the held-out figures are of
    replaced_token_accuracy: float | None = when_set()
    next_sentence_accuracy: float | None = when_set()
    sentence_order_accuracy: float | None = when_set()
