"""``evaluation.json``: the record of a task distillation's teacher or student scored on its
task's test set, written by its job (``task_distillation.student``) and read by the
distillation summary (docs/outputs.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from biocompact.entries import FLAT
from biocompact.records.base import RecordFile, written_when

TEACHER = "teacher"  # the setting of a teacher's record, which holds no student fields
STUDENT_FIELDS = ("experiment", "transfer", "temperature")


def student_field() -> Any:
    """One of the ``STUDENT_FIELDS``: None for a teacher, whose record lacks it; written by a
    student's record even when None."""
    return field(
        default=None, metadata=written_when(lambda record, value: record.setting != TEACHER)
    )


@dataclass(frozen=True, kw_only=True)
class ClassifierScores:
    """A classifier's scores on its task's test set: each of ``metrics`` with its
    definition, ``primary_metric`` the one that ranks, over ``test_units`` (examples;
    questions for yes/no)."""

    primary_metric: str
    metrics: dict[str, float]
    definitions: dict[str, str]
    test_units: int

    def __post_init__(self) -> None:
        undefined = sorted(set(self.metrics) - set(self.definitions))
        if undefined:
            raise ValueError(f"metrics without a definition: {undefined}")


@dataclass(frozen=True, kw_only=True)
class ClassifierEvaluation(RecordFile):
    """``evaluation.json``: the ``scores`` of a teacher (``setting`` ``teacher``) or of a
    student (``distilled``, ``direct`` or ``untrained``) with what was evaluated and how it
    was trained. Only a student's record holds the ``STUDENT_FIELDS``, written even when
    null (``temperature``, but for a distilled student)."""

    FILE = "task distillation evaluation (evaluation.json)"
    RECORD = "task distillation evaluation"

    experiment: str | None = student_field()
    transfer: str | None = student_field()
    setting: str
    model: str
    task: str
    seed: int
    model_path: str
    scores: ClassifierScores = field(metadata=FLAT)
    train_examples: int
    train_seconds: float
    hyperparameters: dict[str, Any]  # task_distillation.settings.CLASSIFIER_TRAINING's
    temperature: float | None = student_field()  # of the soft labels a distilled student learnt

    def __post_init__(self) -> None:
        if self.setting == TEACHER:
            student = [name for name in STUDENT_FIELDS if getattr(self, name) is not None]
            if student:
                raise ValueError(f"keys of no teacher record: {student}")
