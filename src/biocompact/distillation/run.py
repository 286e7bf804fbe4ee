"""The distillation job: initialise a student from its teacher and distil on the shared corpus."""

from __future__ import annotations

import os

import torch
from transformers import AutoModelForMaskedLM

from biocompact.distillation.objectives import METHODS
from biocompact.distillation.student import initialise_student
from biocompact.training.loop import TrainingSettings, pick_device
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
    temperature: float | None,
    alpha: dict,
    layer_map: list[int] | None,
    training: dict,
    masking: dict,
    probes: list[dict],
    threads: int = 1,
) -> dict:
    """Distil student ``name`` from the teacher in ``teacher_dir`` with ``method``.

    ``temperature`` None takes the method's default; the teacher runs in bf16 on a GPU.
    """
    if method not in METHODS:
        raise ValueError(f"unknown distillation method {method!r}; known: {sorted(METHODS)}")
    corpus, tokenizer, batcher = load_corpus(dataset_dir, teacher_dir, masking)
    settings = TrainingSettings(**training)
    teacher = AutoModelForMaskedLM.from_pretrained(teacher_dir)
    student = initialise_student(teacher, student_init, student_layers, student_architecture, settings.seed)
    if pick_device().type == "cuda":
        teacher = teacher.to(torch.bfloat16)
    objective = METHODS[method](student, teacher, temperature=temperature, alpha=alpha, layer_map=layer_map)
    description = {
        "model": name, "teacher": str(teacher_dir), "method": method, "student_init": student_init,
        "student_layers": student_layers, "temperature": objective.temperature, "alpha": objective.alpha,
        "layer_map": objective.layer_map or None,
        "architecture": student.config.to_diff_dict(),
    }
    return train_and_publish(
        objective, corpus, tokenizer, batcher, settings, checkpoint_dir, outputs, probes, description, threads
    )
