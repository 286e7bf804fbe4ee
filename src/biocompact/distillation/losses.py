"""Distillation loss terms, each a direct transcription of its equation in the seed papers.

Conventions: sums over tokens in the papers are averaged over the tokens that take part
(masked tokens for the MLM terms, non-padding tokens for hidden-state alignment), as
DistilBERT's reference implementation does, so the weights alpha do not depend on the
batch size.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F


def mlm_loss(student_logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Seed 000 eq. 1: cross-entropy of the student on the masked tokens (rows = masked tokens)."""
    return F.cross_entropy(student_logits.float(), labels)


def soft_mlm_loss(student_logits: torch.Tensor, teacher_logits: torch.Tensor, temperature: float) -> torch.Tensor:
    """Seed 000 eq. 2: KL(teacher || student) of the output distributions at temperature T.

    Averaged over the masked tokens and scaled by T^2 (Hinton et al.), so the gradient
    size does not shrink with T.
    """
    student_log_probs = F.log_softmax(student_logits.float() / temperature, dim=-1)
    teacher_log_probs = F.log_softmax(teacher_logits.float() / temperature, dim=-1)
    kl = F.kl_div(student_log_probs, teacher_log_probs, log_target=True, reduction="sum")
    return kl / student_logits.shape[0] * temperature**2


def cosine_alignment_loss(
    student_hidden: torch.Tensor, teacher_hidden: torch.Tensor, attention_mask: torch.Tensor
) -> torch.Tensor:
    """Seed 000 eq. 3: mean over real tokens of 1 - cos(h_t, h_s)."""
    selected = attention_mask.bool()
    cosine = F.cosine_similarity(student_hidden[selected].float(), teacher_hidden[selected].float(), dim=-1)
    return (1.0 - cosine).mean()
