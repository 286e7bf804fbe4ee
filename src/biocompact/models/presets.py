"""Named encoder architectures (the papers' model shapes) and how to build their configs.

A model family (``bert``, ``roberta``, ``electra``, ``albert``, ``modernbert``) is a
transformers config class; a preset gives the shape, the architecture's other keys are
fields of that class.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from transformers import (
    AlbertConfig,
    BertConfig,
    ElectraConfig,
    ModernBertConfig,
    PretrainedConfig,
    RobertaConfig,
)

from biocompact.models.shapes import PRESETS

# each family's config class, called with its own fields (the base class takes none of them)
FAMILIES: dict[str, Callable[..., PretrainedConfig]] = {
    "bert": BertConfig,
    "roberta": RobertaConfig,
    "electra": ElectraConfig,
    "albert": AlbertConfig,
    "modernbert": ModernBertConfig,
}

# factorised embedding size of ALBERT (paper, section 3.1) and ELECTRA-small
FACTORISED_EMBEDDING_SIZE = 128


def build_config(
    architecture: Mapping[str, Any],
    vocab_size: int,
    max_position_embeddings: int = 512,
    family: str = "bert",
    pad_token_id: int = 0,
    special_token_ids: Mapping[str, int | None] | None = None,
) -> PretrainedConfig:
    """The ``family``'s config from ``{"preset": name, **overrides}`` (overrides are its fields).

    RoBERTa numbers positions from ``pad_token_id + 1``, so it gets that many more
    position embeddings. ALBERT and ELECTRA default to factorised embeddings of 128 (or
    the hidden size if smaller); ALBERT shares one group of layers (its config's default).
    ModernBERT's rotary positions need no table: it keeps its 8192-token context (or a
    longer ``max_position_embeddings``) and takes ``special_token_ids`` (``cls_token_id``,
    ``sep_token_id``, ``bos_token_id``, ``eos_token_id``: its vocabulary's, in place of its
    config's defaults, which are ids of ModernBERT's own 50k vocabulary).
    """
    if family not in FAMILIES:
        raise ValueError(f"unknown model family {family!r}; known: {sorted(FAMILIES)}")
    settings = dict(architecture)
    preset = settings.pop("preset", None)
    values: dict = {}
    if preset is not None:
        if preset not in PRESETS:
            raise ValueError(f"unknown architecture preset {preset!r}; known: {sorted(PRESETS)}")
        layers, hidden, heads, intermediate = PRESETS[preset]
        values = {
            "num_hidden_layers": layers,
            "hidden_size": hidden,
            "num_attention_heads": heads,
            "intermediate_size": intermediate,
        }
    values.update(settings)
    if family == "roberta":
        max_position_embeddings += pad_token_id + 1
    if family == "modernbert":
        max_position_embeddings = max(
            max_position_embeddings, ModernBertConfig().max_position_embeddings
        )
        values = {**(special_token_ids or {}), **values}
    if family in ("albert", "electra"):
        hidden = values.get("hidden_size", FAMILIES[family]().hidden_size)
        values.setdefault("embedding_size", min(FACTORISED_EMBEDDING_SIZE, hidden))
    return FAMILIES[family](
        vocab_size=vocab_size,
        max_position_embeddings=max_position_embeddings,
        pad_token_id=pad_token_id,
        **values,
    )
