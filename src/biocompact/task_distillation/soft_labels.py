"""The teacher's soft labels on a transfer set (BioXtract, section 4.1) and the loss that
trains a student on them.

Binary tasks: the probability of the positive label, q = sigmoid(z / T) with z the logit
margin of the positive over the other label (a two-logit head's softmax at temperature T
is the same number); the loss is the binary cross-entropy -[q_T ln q_S + (1 - q_T)
ln(1 - q_S)]. More labels: softmax(z / T) over the labels and the soft cross-entropy
-sum_i p_T,i ln p_S,i. Averaged over the batch, without a T^2 factor (the paper uses T = 1)
and without any ground-truth term.

Stored as JSON Lines: the transfer example (``id``, ``text``, ``text_pair``, ``label``)
plus ``soft_label``, the probabilities of the ``columns`` of a JSON sidecar that also
records the teacher, its labels, the activation and the temperature.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from transformers import AutoConfig

from biocompact.files.atomic import atomic_open
from biocompact.finetuning.metrics import positive_label
from biocompact.task_distillation.transfer import read_transfer_set
from biocompact.taskfiles.readers import LabelledText
from biocompact.taskfiles.settings import FinetuningTask

logger = logging.getLogger(__name__)

SIGMOID, SOFTMAX = "sigmoid", "softmax"


def model_labels(model_path: str | Path) -> list[str]:
    """The labels of a sequence-classification checkpoint, in logit order."""
    config = AutoConfig.from_pretrained(model_path)
    return [config.id2label[index] for index in range(config.num_labels)]


def soft_label_columns(labels: Sequence[str]) -> list[str]:
    """The labels a soft label gives a probability for: the positive one of a binary task."""
    return [positive_label(labels)] if len(labels) == 2 else list(labels)


def _binary_margin(logits: torch.Tensor, positive: int) -> torch.Tensor:
    return logits[:, positive] - logits[:, 1 - positive]


def teacher_probabilities(
    logits: torch.Tensor, temperature: float, positive: int = 1
) -> torch.Tensor:
    """Soft labels ``(examples, columns)``: sigmoid(margin / T) of the positive label (index
    ``positive``) for two logits, else softmax(logits / T)."""
    logits = logits.float()
    if logits.shape[-1] == 2:
        return torch.sigmoid(_binary_margin(logits, positive) / temperature)[:, None]
    return F.softmax(logits / temperature, dim=-1)


def soft_label_loss(
    student_logits: torch.Tensor, soft_labels: torch.Tensor, temperature: float, positive: int = 1
) -> torch.Tensor:
    """Mean over the batch of the cross-entropy between the teacher's soft labels and the
    student's probabilities at temperature T (binary when ``soft_labels`` has one column)."""
    student_logits, soft_labels = student_logits.float(), soft_labels.float()
    if soft_labels.shape[-1] == 1:
        margin = _binary_margin(student_logits, positive) / temperature
        return F.binary_cross_entropy_with_logits(margin, soft_labels[:, 0])
    log_probabilities = F.log_softmax(student_logits / temperature, dim=-1)
    return -(soft_labels * log_probabilities).sum(dim=-1).mean()


def write_soft_labels(
    path: str | Path, examples: Sequence[LabelledText], probabilities: np.ndarray
) -> None:
    """One JSON line per transfer example with its ``soft_label`` probabilities, atomically."""
    with atomic_open(path) as handle:
        for example, row in zip(examples, probabilities, strict=True):
            record = {
                "id": example.id,
                "text": example.text,
                "text_pair": example.text_pair,
                "label": example.label or None,
                "soft_label": [round(float(p), 6) for p in row],
            }
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")


def read_soft_labels(path: str | Path) -> tuple[list[LabelledText], list[list[float]]]:
    """The transfer examples of a soft-label file and their soft labels."""
    with open(path, encoding="utf-8") as handle:
        soft = [json.loads(line)["soft_label"] for line in handle]
    return read_transfer_set(path), soft


def check_input_kind(
    examples: Sequence[LabelledText], task_examples: Sequence[LabelledText], transfer: str
) -> None:
    """Raise unless the transfer set and the task both hold single texts or both pairs."""
    pairs = {example.text_pair is not None for example in examples}
    task_pairs = {example.text_pair is not None for example in task_examples}
    if pairs != task_pairs:
        kind = {True: "text pairs", False: "single texts"}
        raise ValueError(
            f"transfer set {transfer}: holds {' and '.join(kind[p] for p in sorted(pairs))} but "
            f"the task's examples are {' and '.join(kind[p] for p in sorted(task_pairs))} "
            "(a randomised set makes (question, passage) pairs with questions: true)"
        )


@dataclass(frozen=True)
class SoftLabelRun:
    """The teacher's soft labels of one experiment on one transfer set: the experiment's
    ``task`` (with the teacher's hyperparameters for batching) and ``temperature``; the
    names of the experiment and the transfer set are recorded in the sidecar."""

    task: FinetuningTask
    temperature: float
    experiment: str | None = None
    transfer: str | None = None
