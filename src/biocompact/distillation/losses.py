"""Distillation loss terms, each a direct transcription of its equation in the papers
(Rohanian et al. 2023; Lewis et al. 2020; Wang et al. 2021, MiniLMv2).

Conventions: sums over tokens in the papers are averaged over the tokens that take part
(masked tokens for the MLM terms, non-padding tokens for hidden states and attention
maps), as DistilBERT's reference implementation does, so the weights alpha do not depend
on the batch size. Attention maps are passed as log-probabilities ``(batch, heads, query,
key)`` with ``pairs`` ``(batch, 1, query, key)``, True where query and key are real tokens
of one document (``biocompact.models.documents.token_pairs``); keys outside a query's pairs
carry (numerically) zero probability. Every average is a masked mean over a fixed shape
(no selection whose size depends on the data), so a compiled step has static shapes.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F


def masked_mean(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """The mean of ``values`` where ``mask`` (broadcast to their shape) is True."""
    mask = mask.expand_as(values)
    return torch.where(mask, values, 0.0).sum() / mask.sum()


def mlm_loss(student_logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Rohanian et al. 2023, eq. 1: cross-entropy of the student on the masked tokens (one row
    each; rows labelled ``IGNORE_INDEX`` are left out)."""
    return F.cross_entropy(student_logits.float(), labels)


def soft_mlm_loss(
    student_logits: torch.Tensor,
    teacher_logits: torch.Tensor,
    temperature: float,
    rows: torch.Tensor | None = None,
) -> torch.Tensor:
    """Rohanian et al. 2023, eq. 2: KL(teacher || student) of the output distributions at temperature T.

    Averaged over the masked tokens (the ``rows`` that are True; all without ``rows``) and
    scaled by T^2 (Hinton et al.), so the gradient size does not shrink with T.
    """
    student_log_probs = F.log_softmax(student_logits.float() / temperature, dim=-1)
    teacher_log_probs = F.log_softmax(teacher_logits.float() / temperature, dim=-1)
    kl = F.kl_div(student_log_probs, teacher_log_probs, log_target=True, reduction="none")
    return _row_mean(kl.sum(dim=-1), rows) * temperature**2


def soft_cross_entropy_loss(
    student_logits: torch.Tensor,
    teacher_logits: torch.Tensor,
    temperature: float = 1.0,
    rows: torch.Tensor | None = None,
) -> torch.Tensor:
    """Rohanian et al. 2023, eq. 8: -(1/N) sum_n sum_i f_t(X)_i^n ln f_s(X)_i^n over the rows
    (tokens; the ``rows`` that are True, all without ``rows``).

    Both distributions at temperature T (TinyBERT's prediction-layer loss; T = 1 is eq. 8).
    """
    teacher_probs = F.softmax(teacher_logits.float() / temperature, dim=-1)
    student_log_probs = F.log_softmax(student_logits.float() / temperature, dim=-1)
    return _row_mean(-(teacher_probs * student_log_probs).sum(dim=-1), rows)


def _row_mean(values: torch.Tensor, rows: torch.Tensor | None) -> torch.Tensor:
    return values.mean() if rows is None else masked_mean(values, rows)


def cosine_alignment_loss(
    student_hidden: torch.Tensor, teacher_hidden: torch.Tensor, attention_mask: torch.Tensor
) -> torch.Tensor:
    """Rohanian et al. 2023, eq. 3 (and the hidden-state half of eq. 10): mean over real tokens of 1 - cos(h_t, h_s)."""
    cosine = F.cosine_similarity(student_hidden.float(), teacher_hidden.float(), dim=-1)
    return masked_mean(1.0 - cosine, attention_mask.bool())


def hidden_mse_loss(
    student_hidden: torch.Tensor, teacher_hidden: torch.Tensor, attention_mask: torch.Tensor
) -> torch.Tensor:
    """Rohanian et al. 2023, eq. 6 (first term) and eq. 7: MSE over the real tokens' hidden units.

    ``student_hidden`` is already projected to the teacher's width (h_s W_h, E_s W_e).
    """
    squared = (student_hidden.float() - teacher_hidden.float()) ** 2
    return masked_mean(squared, attention_mask.bool()[..., None])


def attention_mse_loss(
    student_log_probs: torch.Tensor, teacher_log_probs: torch.Tensor, pairs: torch.Tensor
) -> torch.Tensor:
    """Rohanian et al. 2023, eq. 6 (second term): (1/H) sum_heads MSE(a_s^i, a_t^i).

    The MSE of each head runs over the (query, key) ``pairs`` of its map (real tokens of one
    document); every head has the same number of them, so the mean over heads is the mean
    over all entries.
    """
    difference = (student_log_probs.float().exp() - teacher_log_probs.float().exp()) ** 2
    return masked_mean(difference, pairs)


def attention_kl_loss(
    student_log_probs: torch.Tensor, teacher_log_probs: torch.Tensor, pairs: torch.Tensor
) -> torch.Tensor:
    """Rohanian et al. 2023, eq. 10 (second term): (1/HN) sum_heads sum_tokens D_KL over each query's key distribution.

    Eq. 10 prints D_KL(a_s || a_t); this computes D_KL(a_t || a_s), teacher first, as eq. 2
    does for the outputs, as MobileBERT (eq. 12's source) defines it and as the authors'
    released CompactBioBERT code computes it: the student is fitted to the teacher's maps.
    N counts the real query tokens; keys outside a query's ``pairs`` carry no probability in
    either map.
    """
    student_log_probs, teacher_log_probs = student_log_probs.float(), teacher_log_probs.float()
    teacher_probs = teacher_log_probs.exp()
    pointwise = (
        torch.special.xlogy(teacher_probs, teacher_probs) - teacher_probs * student_log_probs
    )
    per_query = torch.where(pairs, pointwise, 0.0).sum(dim=-1)
    return masked_mean(per_query, pairs.any(dim=-1))


def relation_log_probs(
    vectors: torch.Tensor, relation_heads: int, pairs: torch.Tensor
) -> torch.Tensor:
    """MiniLMv2's self-attention relations (Wang et al. 2021) as log-probabilities
    ``(batch, relation_heads, query, key)``: softmax(A_r A_r^T / sqrt(d_r)) per relation head r.

    ``vectors`` ``(batch, length, width)`` are the queries, keys or values of all attention
    heads concatenated; they are split into ``relation_heads`` heads A_r of d_r = width /
    relation_heads units, so two models of different widths and head counts give relations
    of the same shape. Keys outside a query's ``pairs`` (padding, another document) get no
    probability (the authors add the attention mask to the relation scores, microsoft/unilm
    issue 198).
    """
    batch, length, width = vectors.shape
    if width % relation_heads:
        raise ValueError(f"{relation_heads} relation heads do not divide the width {width}")
    size = width // relation_heads
    heads = vectors.float().view(batch, length, relation_heads, size).transpose(1, 2)
    scores = torch.matmul(heads, heads.transpose(-1, -2)) / math.sqrt(size)
    scores = scores.masked_fill(~pairs, torch.finfo(scores.dtype).min)
    return F.log_softmax(scores, dim=-1)


def relation_kl_loss(
    student_vectors: torch.Tensor,
    teacher_vectors: torch.Tensor,
    relation_heads: int,
    pairs: torch.Tensor,
) -> torch.Tensor:
    """One MiniLMv2 term (Wang et al. 2021): KL(R_teacher || R_student) of the Q-Q, K-K or V-V
    relations of ``relation_heads`` heads, averaged over relation heads and real query tokens.

    The paper averages over the tokens of one sequence; over a batch this averages over its
    real tokens, as every other term here does (``attention_kl_loss``).
    """
    return attention_kl_loss(
        relation_log_probs(student_vectors, relation_heads, pairs),
        relation_log_probs(teacher_vectors, relation_heads, pairs),
        pairs,
    )
