"""The last encoder layer run only at the positions whose outputs are used.

MLM reads the final hidden states at the masked positions alone, so every other row of
the last layer (its query, attention output, feed-forward: 10 of the layer's 12 H x H
matrices) is work thrown away. ``enable_last_layer_at_positions(model)`` gives its last layer
a ``masked_positions`` keyword, which the base model's forward passes down to its layers:
called with it, the last layer computes keys and values at every position, as before, and
the rest at those positions only (a fixed number a sequence,
``masking.prediction_positions``: no shape depends on the data); its output is zero
elsewhere. Without it the layer runs whole (evaluation pipelines, saved models). With 15%
of positions masked this skips 85% of the last layer's work (about 9% of bioformer-8L's
encoder, more in shallow models); the values at the positions are those of the whole
layer, and so are the gradients (tests/models/test_last_layer.py). The keyword is given
once, before training, so a compiled step traces no change to the model.

It applies to the BERT layer layout (BERT, RoBERTa, ELECTRA); other models (ALBERT's
shared layers, ModernBERT) and attention other than SDPA or eager run the whole layer as
before.
"""

from __future__ import annotations

import types
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn
from transformers import PreTrainedModel


def sparse_last_layer(model: PreTrainedModel) -> nn.Module | None:
    """The model's last encoder layer if it can run at chosen positions only, else None."""
    base = model.base_model
    layers = getattr(getattr(base, "encoder", None), "layer", None)
    if (
        not isinstance(layers, nn.ModuleList)
        # the layer's mask must be the (batch, 1, length, length) or broadcastable tensor
        # these two pass on (flash attention gets a 2-D one, flex a BlockMask)
        or model.config._attn_implementation not in ("sdpa", "eager")
    ):
        return None
    layer = layers[-1]
    attention = getattr(layer, "attention", None)
    parts = (getattr(attention, "self", None), getattr(attention, "output", None))
    if (
        not all(isinstance(part, nn.Module) for part in parts)
        or not hasattr(layer, "feed_forward_chunk")
        or getattr(layer, "add_cross_attention", False)
        or getattr(layer, "is_decoder", False)
        or not all(hasattr(parts[0], name) for name in ("query", "key", "value", "scaling"))
    ):
        return None
    return layer


def at_positions(states: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    """``states`` (batch, length, width) at ``positions`` (batch, count): (batch, count, width)."""
    return states.gather(1, positions[..., None].expand(-1, -1, states.shape[-1]))


def enable_last_layer_at_positions(model: PreTrainedModel) -> bool:
    """Give the model's last layer the ``masked_positions`` keyword (once; without it the
    layer's forward is its class's); return whether it has it (False: the layout is not
    supported). ``model.base_model(..., masked_positions=...)`` then passes it down."""
    layer = sparse_last_layer(model)
    if layer is None:
        return False
    if "forward" not in vars(layer):
        layer.forward = types.MethodType(_forward, layer)
    return True


def _forward(
    layer: nn.Module,
    hidden_states: torch.Tensor,
    attention_mask: torch.Tensor | None = None,
    *args,
    masked_positions: torch.Tensor | None = None,
    **kwargs,
) -> torch.Tensor:
    """The layer's forward, at ``masked_positions`` only where they are given."""
    if masked_positions is None:
        return type(layer).forward(layer, hidden_states, attention_mask, *args, **kwargs)
    return _layer_at(layer, hidden_states, attention_mask, masked_positions)


def _layer_at(
    layer: Any,  # a BERT-layout layer (BertLayer, RobertaLayer, ...): sparse_last_layer checks
    hidden_states: torch.Tensor,
    attention_mask: torch.Tensor | None,
    positions: torch.Tensor,
) -> torch.Tensor:
    """``BertLayer.forward`` with queries, attention output and feed-forward at ``positions``."""
    width = hidden_states.shape[-1]
    queries_in = at_positions(hidden_states, positions)
    mask = attention_mask
    if mask is not None and mask.dim() == 4 and mask.shape[-2] == hidden_states.shape[1]:
        mask = mask_rows(mask, positions)
    attention = layer.attention.self
    context = attend(
        attention,
        attention.query(queries_in),
        attention.key(hidden_states),
        attention.value(hidden_states),
        mask,
    )
    attended = layer.attention.output(context, queries_in)
    chosen = layer.feed_forward_chunk(attended)
    return torch.zeros_like(hidden_states).scatter(
        1, positions[..., None].expand(-1, -1, width), chosen
    )


def mask_rows(mask: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    """The query rows of a (batch, heads, query, key) ``mask`` at ``positions`` (batch, count)."""
    return mask.gather(2, positions[:, None, :, None].expand(-1, mask.shape[1], -1, mask.shape[-1]))


def attend(
    attention: Any,  # a BERT-layout self-attention (BertSelfAttention, ...)
    queries: torch.Tensor,
    keys: torch.Tensor,
    values: torch.Tensor,
    mask: torch.Tensor | None,
) -> torch.Tensor:
    """SDPA of ``attention``'s projected ``queries`` (batch, rows, width) over ``keys`` and
    ``values`` (batch, length, width) under ``mask``, with its heads, scale and dropout:
    (batch, rows, width)."""
    heads, head_size = attention.num_attention_heads, attention.attention_head_size
    batch, rows, width = queries.shape

    def split(states: torch.Tensor) -> torch.Tensor:
        return states.view(batch, -1, heads, head_size).transpose(1, 2)

    context = F.scaled_dot_product_attention(
        split(queries),
        split(keys),
        split(values),
        attn_mask=mask,
        dropout_p=attention.dropout.p if attention.training else 0.0,
        scale=attention.scaling,
    )
    return context.transpose(1, 2).reshape(batch, rows, width)
