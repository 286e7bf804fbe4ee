"""The distillation job: initialise a student from its teacher and distil on the shared corpus."""

from __future__ import annotations

import os

from transformers import AutoModelForMaskedLM

from biocompact.distillation.objectives import METHODS
from biocompact.distillation.student import initialise_student
from biocompact.training.loop import TrainingSettings
from biocompact.training.stage import load_corpus, train_and_publish


def run_distillation(
    name: str,
    teacher_dir: str | os.PathLike,
    dataset_dir: str | os.PathLike,
    outputs: dict[str, str],
    checkpoint_dir: str | os.PathLike,
    method: str,
    student_init: str,
    student_layers: list[int] | None,
    student_architecture: dict | None,
    temperature: float,
    alpha: dict,
    training: dict,
    masking: dict,
    probes: list[dict],
    threads: int = 1,
) -> dict:
    """Distil student ``name`` from the teacher in ``teacher_dir`` with ``method``."""
    if method not in METHODS:
        raise ValueError(f"unknown distillation method {method!r}; known: {sorted(METHODS)}")
    corpus, tokenizer, batcher = load_corpus(dataset_dir, teacher_dir, masking)
    settings = TrainingSettings(**training)
    teacher = AutoModelForMaskedLM.from_pretrained(teacher_dir)
    student = initialise_student(teacher, student_init, student_layers, student_architecture, settings.seed)
    objective = METHODS[method](student, teacher, temperature=temperature, alpha=alpha)
    description = {
        "model": name, "teacher": str(teacher_dir), "method": method, "student_init": student_init,
        "student_layers": student_layers, "temperature": temperature, "alpha": objective.alpha,
        "architecture": student.config.to_diff_dict(),
    }
    return train_and_publish(
        objective, corpus, tokenizer, batcher, settings, checkpoint_dir, outputs, probes, description, threads
    )
