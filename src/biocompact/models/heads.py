"""Access to the masked-language-modelling head of a Hugging Face model."""

from __future__ import annotations

from torch import nn
from transformers import (
    BertForPreTraining,
    ElectraForMaskedLM,
    ModernBertForMaskedLM,
    PreTrainedModel,
)

# BERT: cls, RoBERTa: lm_head, ALBERT: predictions
_HEAD_ATTRIBUTES = ("cls", "lm_head", "predictions")


def mlm_head(model: PreTrainedModel) -> nn.Module:
    """The module that maps final hidden states to vocabulary logits."""
    if isinstance(model, ElectraForMaskedLM):  # ELECTRA's generator: transform, then decoder
        return nn.Sequential(model.generator_predictions, model.generator_lm_head)
    if isinstance(model, ModernBertForMaskedLM):  # prediction head, then the tied decoder
        return nn.Sequential(model.head, model.decoder)
    if isinstance(model, BertForPreTraining):  # MLM + next-sentence heads
        return model.cls.predictions
    for attribute in _HEAD_ATTRIBUTES:
        head = getattr(model, attribute, None)
        if isinstance(head, nn.Module):
            return head
    raise TypeError(f"{type(model).__name__} has no masked-language-modelling head")
