"""Which teacher checkpoints a distillation method can use: an MLM head where it reads logits."""

import pytest

from biocompact.distillation.teacher_head import (
    TEACHER_LOGIT_METHODS,
    check_teacher_head,
    has_mlm_head,
)
from biocompact.distillation_methods import DISTILLATION_METHODS


@pytest.mark.parametrize(
    ("architectures", "expected"),
    [
        (["BertForMaskedLM"], True),
        (["BertForPreTraining"], True),
        (["RobertaForMaskedLM"], True),
        (["BertModel"], False),
        (["BertForSequenceClassification"], False),
        ([], False),
    ],
)
def test_has_mlm_head_reads_the_architectures(architectures, expected):
    assert has_mlm_head(architectures) is expected


def test_the_logit_methods_are_the_methods_with_a_temperature():
    assert {
        name for name, method in DISTILLATION_METHODS.items() if method.temperature is not None
    } == TEACHER_LOGIT_METHODS
    assert set(DISTILLATION_METHODS) > TEACHER_LOGIT_METHODS


@pytest.mark.parametrize("method", sorted(TEACHER_LOGIT_METHODS))
def test_a_logit_method_needs_a_head(method):
    with pytest.raises(ValueError, match=f"method '{method}' reads the teacher's MLM logits"):
        check_teacher_head(method, False, "config: distillation.s.teacher")
    check_teacher_head(method, True, "config: distillation.s.teacher")


@pytest.mark.parametrize("method", sorted(set(DISTILLATION_METHODS) - TEACHER_LOGIT_METHODS))
def test_a_method_without_logits_takes_a_headless_teacher(method):
    check_teacher_head(method, False, "config: distillation.s.teacher")
