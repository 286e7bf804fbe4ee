"""How a sequence-level model (dc, re, nli, similarity, yes/no) pools its token states into
the one vector its classifier reads: the hyperparameter ``pooling``.

``cls`` is transformers' own: BERT's pooler (a dense layer and tanh over the [CLS] state),
ModernBERT's [CLS] state. ``mean`` is the attention-mask-weighted mean of the last hidden
states, then the usual dropout and classifier: what a sentence-transformers checkpoint such
as all-MiniLM-L6-v2 was trained to produce (SetFit and sentence-transformers classify that
mean), whose [CLS] pooler was never trained for its embeddings. ``auto`` reads the
checkpoint: mean where its sentence-transformers configuration (``modules.json``) lists a
``Pooling`` module whose ``config.json`` says ``pooling_mode_mean_tokens``, or where it is a
model fine-tuned here with mean pooling; cls otherwise.

ModernBERT pools by mean natively (its config's ``classifier_pooling``), so its saved
models load and predict the same in plain transformers. A BERT-style model (its base model's
``pooler``) gets ``MeanPooling`` in place of that pooler, without the pooler's dense layer
and tanh: a sentence-transformers model has no trained layer there, and its classifier
reads the mean as sentence-transformers computed it. transformers' BERT classes know no
mean pooling, so the saved config records it (``MEAN_POOLING_KEY``) and
``restore_pooling`` puts the mean back after ``from_pretrained`` (``TaskFamily.load_model``,
``load_sequence_classifier`` and compression's ``load_fp32`` call it); plain
``AutoModelForSequenceClassification.from_pretrained`` would instead load a [CLS] pooler
with fresh weights (it warns of them), which the model card says.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import torch
from transformers import AutoModelForSequenceClassification, PreTrainedModel

from biocompact.release.cards import MEAN_POOLING_KEY  # the saved config's mark of MeanPooling
from biocompact.taskfiles.settings import POOLINGS

ST_POOLING = "sentence_transformers.models.Pooling"


def checkpoint_pooling(model_path: str | Path) -> tuple[str, str]:
    """The pooling ``auto`` chooses for the checkpoint folder ``model_path``, and why."""
    folder = Path(model_path)
    config = _json(folder / "config.json") or {}
    if config.get(MEAN_POOLING_KEY) or config.get("classifier_pooling") == "mean":
        return "mean", "the checkpoint's own, fine-tuned with mean pooling"
    modules = _json(folder / "modules.json")
    if isinstance(modules, list):
        for module in modules:
            if isinstance(module, dict) and module.get("type") == ST_POOLING:
                settings = _json(folder / str(module.get("path", "")) / "config.json") or {}
                if settings.get("pooling_mode_mean_tokens") is True:
                    return "mean", "from the checkpoint's sentence-transformers configuration"
                return "cls", "the checkpoint's sentence-transformers pooling is not the mean"
    return "cls", "the checkpoint has no sentence-transformers mean pooling"


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def resolve_pooling(pooling: str, model_path: str | Path) -> tuple[str, str]:
    """``pooling`` (one of ``POOLINGS``) for the checkpoint ``model_path``: ``cls`` or
    ``mean``, with the reason, as metrics.json and the model card state it."""
    if pooling not in POOLINGS:
        raise ValueError(f"pooling must be one of {list(POOLINGS)}, got {pooling!r}")
    if pooling == "auto":
        return checkpoint_pooling(model_path)
    return pooling, "pooling: " + pooling


def pooling_text(pooling: str, reason: str) -> str:
    """E.g. ``mean (from the checkpoint's sentence-transformers configuration)``."""
    return f"{pooling} ({reason})"


def mean_of_tokens(
    hidden_states: torch.Tensor, attention_mask: torch.Tensor | None
) -> torch.Tensor:
    """The mean of ``hidden_states`` (batch, tokens, width) over the tokens of
    ``attention_mask`` (batch, tokens; every token when None)."""
    if attention_mask is None:
        return hidden_states.mean(dim=1)
    weights = attention_mask.to(hidden_states.dtype).unsqueeze(-1)
    return (hidden_states * weights).sum(dim=1) / torch.clamp(weights.sum(dim=1), min=1e-9)


class MeanPooling(torch.nn.Module):
    """A BERT pooler's replacement, without parameters: the mean of the token states under
    the attention mask of the base model's call, which ``_remember_mask`` hands it."""

    def __init__(self) -> None:
        super().__init__()
        self.attention_mask: torch.Tensor | None = None

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        mask, self.attention_mask = self.attention_mask, None
        return mean_of_tokens(hidden_states, mask)


def _remember_mask(module: Any, args: tuple, kwargs: dict) -> None:
    """Forward pre-hook of the base model: hand its attention mask to its pooler."""
    mask = kwargs.get("attention_mask")
    if mask is None and len(args) > 1:
        mask = args[1]  # BertModel.forward(input_ids, attention_mask, ...)
    module.pooler.attention_mask = mask


def apply_pooling(model: PreTrainedModel, pooling: str) -> PreTrainedModel:
    """Make ``model`` (a ...ForSequenceClassification) pool by ``pooling`` (``cls`` or
    ``mean``, resolved) in place; returns it. ``cls`` leaves it as transformers built it."""
    if pooling == "cls":
        if isinstance(getattr(model.base_model, "pooler", None), MeanPooling):
            raise ValueError(
                "pooling: cls on a checkpoint fine-tuned here with mean pooling, which has no "
                "trained [CLS] pooler; use pooling: auto or mean"
            )
        return model
    if pooling != "mean":
        raise ValueError(f"pooling must be cls or mean once resolved, got {pooling!r}")
    if hasattr(model.config, "classifier_pooling"):  # ModernBERT pools by mean itself
        model.config.classifier_pooling = "mean"
        return model
    base = model.base_model
    if getattr(base, "pooler", None) is None:
        raise ValueError(
            "pooling: mean needs a BERT-style model (a pooler on its base model) or "
            f"ModernBERT; {type(model).__name__} has neither"
        )
    if not isinstance(base.pooler, MeanPooling):
        base.pooler = MeanPooling()
        base.register_forward_pre_hook(_remember_mask, with_kwargs=True)
    setattr(model.config, MEAN_POOLING_KEY, True)
    return model


def restore_pooling(model: PreTrainedModel) -> PreTrainedModel:
    """A model loaded by ``from_pretrained`` pooling as it was saved (``MEAN_POOLING_KEY``)."""
    if getattr(model.config, MEAN_POOLING_KEY, False):
        apply_pooling(model, "mean")
    return model


def load_sequence_classifier(folder: str | Path, **settings: Any) -> PreTrainedModel:
    """A saved sequence classifier of this workflow loaded with its pooling:
    ``AutoModelForSequenceClassification.from_pretrained`` and ``restore_pooling``."""
    return restore_pooling(AutoModelForSequenceClassification.from_pretrained(folder, **settings))
