"""Self-attention maps and vectors of a BERT-style encoder, recomputed from the input of a layer.

Transformers' default SDPA attention returns no attention probabilities, and its eager
attention returns them after attention dropout. Layer-wise distillation needs the maps
before dropout, so they are recomputed here from the layer's input hidden state with the
layer's own query and key projections: softmax(Q K^T / sqrt(d) + padding mask), as
log-probabilities. MiniLMv2's relations read the layer's queries, keys and values, taken
the same way. Gradients flow into the projection weights.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn
from transformers import PreTrainedModel


def self_attention(model: PreTrainedModel, layer: int) -> nn.Module:
    """The self-attention module of encoder layer ``layer`` (1-based, as in Rohanian et al. 2023, eq. 5)."""
    try:
        return model.base_model.encoder.layer[layer - 1].attention.self
    except AttributeError as error:
        raise TypeError(
            f"{type(model).__name__} is not a BERT-style encoder (encoder.layer[i].attention.self): "
            "attention maps for layer-wise distillation cannot be taken from it"
        ) from error


def attention_log_probs(
    model: PreTrainedModel, layer: int, layer_input: torch.Tensor, attention_mask: torch.Tensor
) -> torch.Tensor:
    """Log attention probabilities ``(batch, heads, query, key)`` of encoder layer ``layer``.

    ``layer_input`` is the hidden state entering that layer (``hidden_states[layer - 1]``).
    """
    attention = self_attention(model, layer)
    batch, length, _ = layer_input.shape
    shape = (batch, length, attention.num_attention_heads, attention.attention_head_size)
    query = attention.query(layer_input).view(shape).transpose(1, 2)
    key = attention.key(layer_input).view(shape).transpose(1, 2)
    scores = torch.matmul(query.float(), key.float().transpose(-1, -2)) * attention.scaling
    padding = ~attention_mask.bool()[:, None, None, :]
    scores = scores.masked_fill(padding, torch.finfo(scores.dtype).min)
    return F.log_softmax(scores, dim=-1)


def self_attention_vectors(
    model: PreTrainedModel, layer: int, layer_input: torch.Tensor
) -> dict[str, torch.Tensor]:
    """Queries, keys and values of encoder layer ``layer``, each ``(batch, length, width)``:
    the vectors of all attention heads concatenated, as the layer's projections output them.

    ``layer_input`` is the hidden state entering that layer (``hidden_states[layer - 1]``).
    """
    attention = self_attention(model, layer)
    return {name: getattr(attention, name)(layer_input) for name in ("query", "key", "value")}
