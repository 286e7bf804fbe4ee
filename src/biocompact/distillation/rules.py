"""Rule entry points of the distillation stage: one function per rule of
workflow/rules/distillation.smk, named after the rule."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypedDict

from biocompact.distillation.run import DistillationSpec, run_distillation
from biocompact.distillation.settings import DistillationSettings
from biocompact.entries import parse_entry
from biocompact.training.language_model_job import DistillationJob, train_language_model


class DistillationInputs(TypedDict):
    """The named inputs of rule distill."""

    teacher: Sequence[str]  # [] for an external teacher
    corpus: str
    contamination: str | Sequence[str]  # [] when the corpus is not decontaminated
    student: Sequence[str]  # [] unless the student starts from a model of this config


def distill(
    settings: DistillationJob,
    *,
    inputs: DistillationInputs,
    outputs: Mapping[str, str],
    threads: int,
    gpus: int,
    nodes: int,
) -> None:
    """Distil one student (inputs: corpus; outputs: model, log, eval)."""
    train_language_model(
        run_distillation,
        DistillationSpec,
        settings,
        inputs,
        outputs,
        threads=threads,
        gpus=gpus,
        nodes=nodes,
        settings=parse_entry(DistillationSettings, settings.settings),
        teacher_dir=settings.teacher,
    )
