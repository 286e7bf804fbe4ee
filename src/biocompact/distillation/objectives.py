"""Distillation methods as training objectives, selected by name from the config."""

from __future__ import annotations

import torch
from transformers import PreTrainedModel

from biocompact.distillation.losses import cosine_alignment_loss, mlm_loss, soft_mlm_loss
from biocompact.models.heads import mlm_head
from biocompact.training.masking import IGNORE_INDEX
from biocompact.training.objective import Objective


class DistilBertObjective(Objective):
    """DistilBioBERT (seed 000 eq. 4): alpha_mlm L_mlm + alpha_soft L_softMLM + alpha_align L_align.

    The frozen teacher runs without gradients; its MLM head only on the masked positions.
    """

    frozen = ("teacher.",)
    default_alpha = {"mlm": 2.0, "soft": 5.0, "align": 1.0}

    def __init__(self, student: PreTrainedModel, teacher: PreTrainedModel, temperature: float, alpha: dict):
        super().__init__()
        if student.config.hidden_size != teacher.config.hidden_size:
            raise ValueError(
                "the distilbert method aligns hidden states with a cosine and needs equal widths: "
                f"student {student.config.hidden_size}, teacher {teacher.config.hidden_size}"
            )
        self.student = student
        self.teacher = teacher.eval().requires_grad_(False)
        self.temperature = temperature
        self.alpha = {**self.default_alpha, **alpha}

    def train(self, mode: bool = True) -> DistilBertObjective:
        super().train(mode)
        self.teacher.eval()
        return self

    def forward(self, batch: dict[str, torch.Tensor]) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        inputs = {"input_ids": batch["input_ids"], "attention_mask": batch["attention_mask"]}
        selected = batch["labels"] != IGNORE_INDEX
        student_hidden = self.student.base_model(**inputs).last_hidden_state
        with torch.no_grad():
            teacher_hidden = self.teacher.base_model(**inputs).last_hidden_state
            teacher_logits = mlm_head(self.teacher)(teacher_hidden[selected])
        student_logits = mlm_head(self.student)(student_hidden[selected])
        terms = {
            "mlm": mlm_loss(student_logits, batch["labels"][selected]),
            "soft": soft_mlm_loss(student_logits, teacher_logits, self.temperature),
            "align": cosine_alignment_loss(student_hidden, teacher_hidden, batch["attention_mask"]),
        }
        loss = sum(self.alpha[name] * value for name, value in terms.items())
        return loss, {f"loss_{name}": value.detach() for name, value in terms.items()}

    def model_to_save(self) -> PreTrainedModel:
        return self.student


METHODS: dict[str, type[Objective]] = {"distilbert": DistilBertObjective}
