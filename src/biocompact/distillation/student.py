"""Student initialisation: a subset of the teacher's layers (DistilBERT) or a fresh model."""

from __future__ import annotations

import copy

import torch
from transformers import AutoModelForMaskedLM, PreTrainedModel

from biocompact.locations import resolve_location
from biocompact.models.presets import build_config


def every_other_layer(n_teacher_layers: int) -> list[int]:
    """DistilBERT's default: teacher layers 0, 2, 4, ..."""
    return list(range(0, n_teacher_layers, 2))


def student_from_teacher_layers(
    teacher: PreTrainedModel, layers: list[int] | None
) -> PreTrainedModel:
    """Trainable copy of the teacher keeping only ``layers`` (embeddings and MLM head copied as they are)."""
    n_layers = teacher.config.num_hidden_layers
    layers = every_other_layer(n_layers) if layers is None else layers
    if not layers or any(not 0 <= index < n_layers for index in layers):
        raise ValueError(f"student_layers {layers} must name layers of a {n_layers}-layer teacher")
    student = copy.deepcopy(teacher)
    encoder = student.base_model.encoder
    encoder.layer = torch.nn.ModuleList(encoder.layer[index] for index in layers)
    student.config.num_hidden_layers = len(layers)
    return student.requires_grad_(True)


def initialise_student(
    teacher: PreTrainedModel,
    init: str,
    layers: list[int] | None,
    architecture: dict | None,
    seed: int,
) -> PreTrainedModel:
    """``teacher_layers``, ``random`` (with ``architecture``) or a checkpoint folder / hub name."""
    torch.manual_seed(seed)
    if init == "teacher_layers":
        student = student_from_teacher_layers(teacher, layers)
    elif init == "random":
        config = build_config(
            architecture or {},
            vocab_size=teacher.config.vocab_size,
            max_position_embeddings=teacher.config.max_position_embeddings,
        )
        config.pad_token_id = teacher.config.pad_token_id
        student = AutoModelForMaskedLM.from_config(config)
    else:
        student = AutoModelForMaskedLM.from_pretrained(resolve_location(init))
    if student.config.vocab_size != teacher.config.vocab_size:
        raise ValueError(
            f"student vocabulary ({student.config.vocab_size}) differs from the teacher's "
            f"({teacher.config.vocab_size}): output distillation needs a shared vocabulary"
        )
    return student
