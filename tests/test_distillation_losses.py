"""DistilBioBERT loss terms (seed 000 eq. 1-4) against hand-computed values."""

import math

import pytest
import torch

from biocompact.distillation.losses import cosine_alignment_loss, mlm_loss, soft_mlm_loss


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
    assert soft_mlm_loss(student.repeat(2, 1), teacher.repeat(2, 1), 2.0).item() == pytest.approx(expected_t2, rel=1e-5)


def test_soft_loss_is_zero_for_identical_distributions():
    logits = torch.randn(5, 7)
    assert soft_mlm_loss(logits, logits.clone(), 3.0).item() == pytest.approx(0.0, abs=1e-6)


def test_cosine_alignment_ignores_padding():
    student = torch.tensor([[[1.0, 0.0], [1.0, 1.0], [5.0, -3.0]]])
    teacher = torch.tensor([[[0.0, 1.0], [2.0, 2.0], [1.0, 1.0]]])
    mask = torch.tensor([[1, 1, 0]])
    # token 1: cos = 0 -> 1; token 2: cos = 1 -> 0; token 3 is padding
    assert cosine_alignment_loss(student, teacher, mask).item() == pytest.approx(0.5)
