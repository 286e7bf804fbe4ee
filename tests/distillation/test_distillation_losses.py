"""Distillation loss terms (Rohanian et al. 2023, eq. 1-3, 6-8, 10; Wang et al. 2021, MiniLMv2)
against hand-computed values."""

import math

import pytest
import torch

from biocompact.distillation.losses import (
    attention_kl_loss,
    attention_mse_loss,
    cosine_alignment_loss,
    hidden_mse_loss,
    mlm_loss,
    relation_kl_loss,
    relation_log_probs,
    soft_cross_entropy_loss,
    soft_mlm_loss,
)
from biocompact.models.documents import token_pairs


def test_mlm_loss_is_cross_entropy_on_masked_tokens():
    logits = torch.tensor([[0.0, math.log(3.0)]])  # softmax = [1/4, 3/4]
    assert mlm_loss(logits, torch.tensor([1])).item() == pytest.approx(math.log(4 / 3))
    assert mlm_loss(logits, torch.tensor([0])).item() == pytest.approx(math.log(4))


def test_soft_loss_is_kl_teacher_student_scaled_by_t_squared():
    student = torch.tensor([[0.0, 0.0]])
    teacher = torch.tensor([[0.0, math.log(3.0)]])
    # T = 1: KL([1/4, 3/4] || [1/2, 1/2])
    expected_t1 = 0.25 * math.log(0.5) + 0.75 * math.log(1.5)
    assert soft_mlm_loss(student, teacher, 1.0).item() == pytest.approx(expected_t1, rel=1e-5)
    # T = 2: teacher probabilities softmax([0, ln3 / 2]) = [1, sqrt 3] / (1 + sqrt 3); times T^2
    q = [1 / (1 + math.sqrt(3)), math.sqrt(3) / (1 + math.sqrt(3))]
    expected_t2 = 4 * sum(qi * math.log(qi / 0.5) for qi in q)
    assert soft_mlm_loss(student, teacher, 2.0).item() == pytest.approx(expected_t2, rel=1e-5)
    # averaged over masked tokens: two identical rows give the same value
    assert soft_mlm_loss(student.repeat(2, 1), teacher.repeat(2, 1), 2.0).item() == pytest.approx(
        expected_t2, rel=1e-5
    )


def test_soft_loss_is_zero_for_identical_distributions():
    logits = torch.randn(5, 7)
    assert soft_mlm_loss(logits, logits.clone(), 3.0).item() == pytest.approx(0.0, abs=1e-6)


def test_cosine_alignment_ignores_padding():
    student = torch.tensor([[[1.0, 0.0], [1.0, 1.0], [5.0, -3.0]]])
    teacher = torch.tensor([[[0.0, 1.0], [2.0, 2.0], [1.0, 1.0]]])
    mask = torch.tensor([[1, 1, 0]])
    # token 1: cos = 0 -> 1; token 2: cos = 1 -> 0; token 3 is padding
    assert cosine_alignment_loss(student, teacher, mask).item() == pytest.approx(0.5)


def test_soft_cross_entropy_is_eq_8_with_temperature():
    student = torch.tensor([[0.0, math.log(3.0)]])  # softmax = [1/4, 3/4]
    teacher = torch.tensor([[0.0, 0.0]])  # [1/2, 1/2]
    expected = -(0.5 * math.log(0.25) + 0.5 * math.log(0.75))
    assert soft_cross_entropy_loss(student, teacher).item() == pytest.approx(expected, rel=1e-6)
    # T = 2: student softmax([0, ln3 / 2]) = [1, sqrt 3] / (1 + sqrt 3); teacher stays uniform; no T^2
    s = [1 / (1 + math.sqrt(3)), math.sqrt(3) / (1 + math.sqrt(3))]
    expected_t2 = -(0.5 * math.log(s[0]) + 0.5 * math.log(s[1]))
    assert soft_cross_entropy_loss(student, teacher, 2.0).item() == pytest.approx(
        expected_t2, rel=1e-6
    )
    # mean over rows (tokens): a second row with loss ln 2 averages in
    both = soft_cross_entropy_loss(torch.cat([student, teacher]), torch.cat([teacher, teacher]))
    assert both.item() == pytest.approx((expected + math.log(2)) / 2, rel=1e-6)


def test_hidden_mse_averages_real_tokens_and_units():
    student = torch.tensor([[[1.0, 2.0], [3.0, 4.0], [100.0, 100.0]]])
    teacher = torch.tensor([[[1.0, 0.0], [3.0, 5.0], [0.0, 0.0]]])
    mask = torch.tensor([[1, 1, 0]])
    # squared errors 0, 4, 0, 1 over 2 real tokens x 2 units; the padding token is left out
    assert hidden_mse_loss(student, teacher, mask).item() == pytest.approx(5 / 4)


# One sequence of three tokens, the last one padding; two heads. Probabilities per query row.
ATTENTION_MASK = torch.tensor([[1, 1, 0]])
PAIRS = token_pairs({"attention_mask": ATTENTION_MASK})
STUDENT_MAPS = torch.tensor(
    [
        [
            [[0.5, 0.5, 0.0], [0.25, 0.75, 0.0], [0.1, 0.2, 0.7]],
            [[0.5, 0.5, 0.0], [0.5, 0.5, 0.0], [0.3, 0.3, 0.4]],
        ]
    ]
)
TEACHER_MAPS = torch.tensor(
    [
        [
            [[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.9, 0.1, 0.0]],
            [[0.5, 0.5, 0.0], [0.5, 0.5, 0.0], [0.2, 0.2, 0.6]],
        ]
    ]
)


def test_attention_mse_is_mean_over_heads_of_per_head_mse():
    # head 1: squared errors 0.25, 0.25, 0.0625, 0.0625 over its 4 real (query, key) entries; head 2: 0
    expected = (0.625 / 4 + 0.0) / 2
    loss = attention_mse_loss(STUDENT_MAPS.log(), TEACHER_MAPS.log(), PAIRS)
    assert loss.item() == pytest.approx(expected, rel=1e-6)


def test_attention_kl_is_teacher_first_per_query_averaged_over_heads_and_tokens():
    # head 1, query 1: KL([1, 0] || [1/2, 1/2]) = ln 2; query 2: KL([1/2, 1/2] || [1/4, 3/4])
    query_2 = 0.5 * math.log(0.5 / 0.25) + 0.5 * math.log(0.5 / 0.75)
    expected = (math.log(2) + query_2 + 0.0 + 0.0) / (2 * 2)  # H = 2 heads, N = 2 real tokens
    loss = attention_kl_loss(STUDENT_MAPS.log(), TEACHER_MAPS.log(), PAIRS)
    assert loss.item() == pytest.approx(expected, rel=1e-6)
    assert attention_kl_loss(STUDENT_MAPS.log(), STUDENT_MAPS.log(), PAIRS).item() == pytest.approx(
        0.0, abs=1e-7
    )


# MiniLMv2 relations: one sequence of two real tokens and a padding token with large values
# (it must change nothing). Teacher token 1 = (a, 0, 0, 0) with a^2 / sqrt(4) = ln 3, so its
# relation row is softmax([ln 3, 0]) = [3/4, 1/4]; every other row is uniform.
RELATION_MASK = token_pairs({"attention_mask": torch.tensor([[1, 1, 0]])})
A = math.sqrt(2 * math.log(3))
TEACHER_VECTORS = torch.tensor([[[A, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [5.0, 5.0, 5.0, 5.0]]])
KL_ROW_1 = 0.75 * math.log(0.75 / 0.5) + 0.25 * math.log(0.25 / 0.5)


def test_relation_is_the_softmax_of_scaled_dot_products_over_real_keys():
    probs = relation_log_probs(TEACHER_VECTORS, 1, RELATION_MASK).exp()
    assert probs.shape == (1, 1, 3, 3)
    assert probs[0, 0, 0].tolist() == pytest.approx([0.75, 0.25, 0.0], abs=1e-6)
    assert probs[0, 0, 1].tolist() == pytest.approx([0.5, 0.5, 0.0], abs=1e-6)


def test_relation_heads_split_the_concatenated_vectors():
    # 2 relation heads of d_r = 2: head 1 holds units 1-2 of every token, head 2 units 3-4;
    # (b, 0, 0, 0) with b^2 / sqrt(2) = ln 3 gives [3/4, 1/4] in head 1, head 2 stays uniform
    b = math.sqrt(math.sqrt(2) * math.log(3))
    vectors = torch.tensor([[[b, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [1.0, 2.0, 3.0, 4.0]]])
    probs = relation_log_probs(vectors, 2, RELATION_MASK).exp()
    assert probs[0, 0, 0, :2].tolist() == pytest.approx([0.75, 0.25], abs=1e-6)
    assert probs[0, 1, 0, :2].tolist() == pytest.approx([0.5, 0.5], abs=1e-6)
    with pytest.raises(ValueError, match="3 relation heads do not divide the width 4"):
        relation_log_probs(vectors, 3, RELATION_MASK)


def test_relation_kl_is_teacher_first_averaged_over_relation_heads_and_real_tokens():
    # a student of another width (1 unit): all its scores are 0, so every row is uniform
    student = torch.tensor([[[0.0], [0.0], [7.0]]])
    loss = relation_kl_loss(student, TEACHER_VECTORS, 1, RELATION_MASK)
    assert loss.item() == pytest.approx((KL_ROW_1 + 0.0) / 2, rel=1e-5)  # 1 head, 2 real tokens
    # two relation heads: the second head of both is uniform, so the mean over heads halves it
    student_2 = torch.zeros(1, 3, 2)
    assert relation_kl_loss(student_2, TEACHER_VECTORS, 2, RELATION_MASK).item() == pytest.approx(
        _kl_two_heads() / (2 * 2), rel=1e-5
    )
    assert relation_kl_loss(
        TEACHER_VECTORS, TEACHER_VECTORS, 2, RELATION_MASK
    ).item() == pytest.approx(0.0, abs=1e-6)


def _kl_two_heads() -> float:
    # head 1 of TEACHER_VECTORS at d_r = 2: token 1 = (a, 0), a^2 / sqrt(2) = sqrt(2) ln 3
    p = 1 / (1 + 3 ** -math.sqrt(2))  # softmax([sqrt(2) ln 3, 0])[0]
    return p * math.log(p / 0.5) + (1 - p) * math.log((1 - p) / 0.5)
