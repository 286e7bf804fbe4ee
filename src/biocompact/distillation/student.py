"""Student initialisation: a subset of the teacher's layers (DistilBERT) or a fresh model."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, cast

import torch
from transformers import AutoModelForMaskedLM, ModernBertModel, PreTrainedModel

from biocompact.distillation.layer_map import resolve_student_layers
from biocompact.locations import resolve_location
from biocompact.models.presets import build_config

# the family of a random student: its teacher's where the teacher's tokenizer only fits it
# (ModernBERT's has no token types and its own special ids); BERT otherwise
RANDOM_STUDENT_FAMILIES = ("modernbert",)


def student_from_teacher_layers(
    teacher: PreTrainedModel, layers: list[int] | None
) -> PreTrainedModel:
    """Trainable copy of the teacher keeping only ``layers`` (embeddings and MLM head copied as they are).

    A ModernBERT student keeps each copied layer's attention type (global or local,
    ``config.layer_types``), so every layer attends as it did in the teacher; its first
    layer must be the teacher's first, the only one without a pre-attention norm.
    """
    layers = resolve_student_layers(teacher.config.num_hidden_layers, layers)
    student = copy.deepcopy(teacher)
    base = student.base_model
    if isinstance(base, ModernBertModel):
        if layers[0] != 0 or 0 in layers[1:]:
            raise ValueError(
                f"student_layers {layers}: a ModernBERT student's first layer must be the "
                "teacher's layer 0 (the only layer without a pre-attention norm), and only "
                "the first"
            )
        base.layers = torch.nn.ModuleList(base.layers[index] for index in layers)
        student.config.layer_types = [teacher.config.layer_types[index] for index in layers]
    else:
        encoder = cast(Any, base).encoder  # a BERT-style encoder
        encoder.layer = torch.nn.ModuleList(encoder.layer[index] for index in layers)
    student.config.num_hidden_layers = len(layers)
    return student.requires_grad_(True)


def initialise_student(
    teacher: PreTrainedModel,
    init: str,
    layers: list[int] | None,
    architecture: Mapping[str, Any] | None,
    seed: int,
) -> PreTrainedModel:
    """``teacher_layers``, ``random`` (with ``architecture``) or a checkpoint folder / hub name."""
    torch.manual_seed(seed)
    if init == "teacher_layers":
        student = student_from_teacher_layers(teacher, layers)
    elif init == "random":
        teacher_family = teacher.config.model_type
        config = build_config(
            architecture or {},
            vocab_size=teacher.config.vocab_size,
            max_position_embeddings=teacher.config.max_position_embeddings,
            family=teacher_family if teacher_family in RANDOM_STUDENT_FAMILIES else "bert",
            pad_token_id=teacher.config.pad_token_id,
            special_token_ids={
                key: getattr(teacher.config, key, None)
                for key in ("cls_token_id", "sep_token_id", "bos_token_id", "eos_token_id")
            },
        )
        student = AutoModelForMaskedLM.from_config(config)
    else:
        student = AutoModelForMaskedLM.from_pretrained(resolve_location(init))
    if student.config.vocab_size != teacher.config.vocab_size:
        raise ValueError(
            f"student vocabulary ({student.config.vocab_size}) differs from the teacher's "
            f"({teacher.config.vocab_size}): output distillation needs a shared vocabulary"
        )
    return student
