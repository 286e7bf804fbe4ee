"""Whether a distillation method can use a teacher checkpoint without an MLM head (light:
no torch, so the DAG checks it before any job runs)."""

from __future__ import annotations

from collections.abc import Sequence

from biocompact.distillation_methods import DISTILLATION_METHODS

# The methods whose losses read the teacher's MLM logits
TEACHER_LOGIT_METHODS = frozenset(
    name for name, method in DISTILLATION_METHODS.items() if method.reads_teacher_logits
)

# Hugging Face architectures whose checkpoint holds an MLM head (BertForPreTraining: MLM + NSP).
MLM_HEAD_SUFFIXES = ("ForMaskedLM", "ForPreTraining")


def has_mlm_head(architectures: Sequence[str]) -> bool:
    """Whether a checkpoint of these ``config.json`` ``architectures`` ships an MLM head."""
    return any(name.endswith(MLM_HEAD_SUFFIXES) for name in architectures)


def check_teacher_head(method: str, has_head: bool, where: str) -> None:
    """Refuse ``method`` on a teacher without an MLM head when the method reads its logits,
    saying what it needs instead (``where`` names the config key or checkpoint)."""
    if has_head or method not in TEACHER_LOGIT_METHODS:
        return
    readers = ", ".join(sorted(TEACHER_LOGIT_METHODS))
    raise ValueError(
        f"{where}: the teacher checkpoint has no MLM head, but method {method!r} reads the "
        f"teacher's MLM logits (as do {readers}); use a method that needs no logits "
        "(minilmv2: attention relations; mlm: the teacher only initialises the student), or "
        "train a head first with a pretraining entry that continues the checkpoint (init: its "
        "location, steps: enough for the head to learn) and name that entry as teacher "
        "(docs/configuration.md, 'An external model as a teacher')"
    )
