"""Self-attention maps and vectors of an encoder layer, recomputed from the input of that layer.

Transformers' default SDPA attention returns no attention probabilities, and its eager
attention returns them after attention dropout. Layer-wise distillation needs the maps
before dropout, so they are recomputed here from the layer's input hidden state with the
layer's own query and key projections: softmax(Q K^T / sqrt(d) + mask), as
log-probabilities. MiniLMv2's relations read the layer's queries, keys and values, taken
the same way. Gradients flow into the projection weights.

Two layouts are known: BERT-style encoders (``encoder.layer[i].attention.self`` with
``query``/``key``/``value``; BERT, RoBERTa, ALBERT's shared layer aside) and ModernBERT
(Warner et al. 2024: ``layers[i].attn`` with one fused ``Wqkv`` applied after the layer's
pre-attention norm, rotary positions on Q and K, and a sliding window of
``config.sliding_window`` tokens each side in its local-attention layers).
"""

from __future__ import annotations

from typing import Any, cast

import torch
import torch.nn.functional as F
from transformers import PreTrainedModel
from transformers.models.modernbert.modeling_modernbert import (
    ModernBertEncoderLayer,
    ModernBertModel,
    apply_rotary_pos_emb,
)


def query_key_value(
    model: PreTrainedModel,
    layer: int,
    layer_input: torch.Tensor,
    position_ids: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor | None]:
    """Q, K, V ``(batch, heads, tokens, head size)`` of encoder layer ``layer`` (1-based, as in
    Rohanian et al. 2023, eq. 5) as its attention computes them, and the ``(tokens, tokens)``
    boolean mask of the key positions each query may see (None: all of them).

    ``layer_input`` is the hidden state entering that layer (``hidden_states[layer - 1]``);
    ``position_ids`` those the model ran with (rotary positions; None: 0, 1, ...).
    """
    base = model.base_model
    batch, length, _ = layer_input.shape
    if isinstance(base, ModernBertModel):
        block = base.layers[layer - 1]
        assert isinstance(block, ModernBertEncoderLayer)
        attention = block.attn
        fused = attention.Wqkv(block.attn_norm(layer_input))
        heads = fused.view(batch, length, 3, -1, attention.head_dim).transpose(1, 3)
        query, key, value = heads.unbind(dim=2)
        offsets = torch.arange(length, device=layer_input.device)
        positions = offsets[None] if position_ids is None else position_ids
        cos, sin = base.rotary_emb(layer_input, positions, block.attention_type)
        query, key = apply_rotary_pos_emb(query, key, cos, sin, unsqueeze_dim=1)
        window = None
        if block.attention_type == "sliding_attention":
            window = (offsets[:, None] - offsets[None, :]).abs() <= base.config.sliding_window
        return query, key, value, window
    try:
        attention = cast(Any, base).encoder.layer[layer - 1].attention.self  # BERT-style
    except AttributeError as error:
        raise TypeError(
            f"{type(model).__name__} is neither a BERT-style encoder "
            "(encoder.layer[i].attention.self) nor a ModernBERT: attention maps for "
            "layer-wise distillation cannot be taken from it"
        ) from error
    shape = (batch, length, attention.num_attention_heads, attention.attention_head_size)
    return tuple(
        projection(layer_input).view(shape).transpose(1, 2)
        for projection in (attention.query, attention.key, attention.value)
    ) + (None,)


def attention_log_probs(
    model: PreTrainedModel,
    layer: int,
    layer_input: torch.Tensor,
    pairs: torch.Tensor,
    position_ids: torch.Tensor | None = None,
) -> torch.Tensor:
    """Log attention probabilities ``(batch, heads, query, key)`` of encoder layer ``layer``,
    each query over the keys of its ``pairs`` (``biocompact.models.documents.token_pairs``).

    ``layer_input`` is the hidden state entering that layer (``hidden_states[layer - 1]``).
    """
    query, key, _, window = query_key_value(model, layer, layer_input, position_ids)
    scaling = query.shape[-1] ** -0.5
    scores = torch.matmul(query.float(), key.float().transpose(-1, -2)) * scaling
    hidden = ~pairs
    if window is not None:
        hidden = hidden | ~window
    scores = scores.masked_fill(hidden, torch.finfo(scores.dtype).min)
    return F.log_softmax(scores, dim=-1)


def layer_input(model: PreTrainedModel, layer: int, inputs: dict) -> torch.Tensor:
    """The hidden state entering encoder layer ``layer`` (1-based) on ``inputs`` (the base
    model's keyword arguments). A BERT-style encoder runs only the layers before it (its
    layer list cut for the call); others run whole and return ``hidden_states[layer - 1]``."""
    encoder = getattr(model.base_model, "encoder", None)
    layers = getattr(encoder, "layer", None)
    if not isinstance(layers, torch.nn.ModuleList):
        return model.base_model(**inputs, output_hidden_states=True).hidden_states[layer - 1]
    assert encoder is not None  # it holds the layers
    encoder.layer = layers[: layer - 1]
    try:
        return model.base_model(**inputs).last_hidden_state
    finally:
        encoder.layer = layers


def self_attention_vectors(
    model: PreTrainedModel,
    layer: int,
    layer_input: torch.Tensor,
    position_ids: torch.Tensor | None = None,
) -> dict[str, torch.Tensor]:
    """Queries, keys and values of encoder layer ``layer``, each ``(batch, length, width)``:
    the vectors of all attention heads concatenated, as the layer's projections output them.

    ``layer_input`` is the hidden state entering that layer (``hidden_states[layer - 1]``).
    """
    batch, length, _ = layer_input.shape
    vectors = query_key_value(model, layer, layer_input, position_ids)[:3]
    return {
        name: heads.transpose(1, 2).reshape(batch, length, -1)
        for name, heads in zip(("query", "key", "value"), vectors)
    }
