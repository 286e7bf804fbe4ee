"""The encoder run on a batch's real tokens only: no work at padding.

A fixed-shape packed batch (``biocompact.training.batches``) is partly padding: with
``best_fit`` packing at 128 tokens, 14% of its positions (docs/speed.md), which the padded
encoder computes and throws away. ``hidden_at_positions`` runs a BERT-layout encoder (BERT,
RoBERTa, ELECTRA: those ``last_layer.sparse_last_layer`` takes) on the real tokens alone,
as one flat stream: the embeddings, every matrix product, LayerNorm and dropout see real
tokens only. Each layer's queries, keys and values go back into the batch's (sequence,
position) grid for SDPA with the document mask (attention is a small part of the work at
these lengths), so every token attends to the tokens of its own document as before, and
the last layer runs at the masked positions only, as in ``last_layer``. The hidden states
there are the padded encoder's (tests/models/test_unpadded.py).

The stream's length depends on the data, so this is the eager CPU path: a compiled step
needs fixed shapes, and on a GPU finding the real tokens would make the host wait for the
device; both keep the padded encoder, and so does the code inside ``keep_padding()`` (the GPU
suite's smoke run, which profiles a GPU's step on the CPU).
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import torch
from transformers import PreTrainedModel

from biocompact.models.documents import document_mask, document_positions, first_position
from biocompact.models.last_layer import attend, mask_rows, sparse_last_layer

_PADDING_KEPT: ContextVar[bool] = ContextVar("padding_kept", default=False)


@contextlib.contextmanager
def keep_padding() -> Iterator[None]:
    """Within it the encoder computes the padding on the CPU too, as on a GPU."""
    token = _PADDING_KEPT.set(True)
    try:
        yield
    finally:
        _PADDING_KEPT.reset(token)


@dataclass(frozen=True)
class RealTokens:
    """A batch's real tokens (``mask``: its (sequence, position) attention mask) as one flat
    stream, in the order of the flattened grid."""

    mask: torch.Tensor

    @functools.cached_property
    def index(self) -> torch.Tensor:
        """Each token of the stream's index into the flattened grid."""
        return self.mask.flatten().nonzero().squeeze(1)

    def flat(self, grid: torch.Tensor) -> torch.Tensor:
        """(sequence, position, ...) values at the real tokens: (tokens, ...)."""
        return grid.flatten(0, 1).index_select(0, self.index)

    def grid(self, flat: torch.Tensor) -> torch.Tensor:
        """(tokens, width) back into the grid: (sequence, position, width), zero at padding."""
        sequences, length = self.mask.shape
        padded = flat.new_zeros(sequences * length, flat.shape[-1])
        return padded.index_copy(0, self.index, flat).view(sequences, length, -1)

    def stream_index(self, positions: torch.Tensor) -> torch.Tensor:
        """Each grid position of ``positions`` (sequence, count) as an index into the flat
        stream (a padding position gets the real token before it: its value is ignored)."""
        numbering = (self.mask.flatten().cumsum(0) - 1).clamp(min=0).view(self.mask.shape)
        return numbering.gather(1, positions)


def unpads(model: PreTrainedModel, batch: dict[str, torch.Tensor]) -> bool:
    """Whether ``hidden_at_positions`` runs the batch: a BERT-layout model, on the CPU, not
    being compiled, outside ``keep_padding()``."""
    return (
        batch["input_ids"].device.type == "cpu"
        and not torch.compiler.is_compiling()
        and not _PADDING_KEPT.get()
        and sparse_last_layer(model) is not None
    )


def hidden_at_positions(
    model: PreTrainedModel,
    batch: dict[str, torch.Tensor],
    positions: torch.Tensor,
    kept: torch.Tensor | None = None,
) -> torch.Tensor:
    """The encoder's final hidden states at ``positions`` (sequence, count), one row a
    position (sequence x count, width), or at those where ``kept`` (sequence, count) is True
    only (the last layer's attention output and feed-forward run at those alone); computed
    at the batch's real tokens only (``unpads`` must hold)."""
    real = RealTokens(batch["attention_mask"])
    documents = batch.get("documents")
    if documents is None:  # one document a sequence
        documents = torch.where(batch["attention_mask"].bool(), 0, -1)
    base: Any = model.base_model
    token_types = batch.get("token_type_ids")
    hidden = base.embeddings(
        input_ids=real.flat(batch["input_ids"])[None],
        token_type_ids=None if token_types is None else real.flat(token_types)[None],
        position_ids=real.flat(document_positions(documents, first_position(model)))[None],
    )
    if hasattr(base, "embeddings_project"):  # ELECTRA with embeddings narrower than the layers
        hidden = base.embeddings_project(hidden)
    hidden = hidden[0]
    mask = document_mask(documents)
    *layers, last = base.encoder.layer
    for layer in layers:
        queries = real.grid(layer.attention.self.query(hidden))
        context = real.flat(_attend(layer, queries, hidden, real, mask))
        hidden = layer.feed_forward_chunk(layer.attention.output(context, hidden))
    # the last layer: keys and values at every real token, the rest at the positions only
    chosen = hidden.index_select(0, real.stream_index(positions).flatten()).view(
        *positions.shape, -1
    )
    queries = last.attention.self.query(chosen)
    context = _attend(last, queries, hidden, real, mask_rows(mask, positions)).flatten(0, 1)
    chosen = chosen.flatten(0, 1)
    if kept is not None:
        rows = kept.flatten().nonzero().squeeze(1)
        context, chosen = context.index_select(0, rows), chosen.index_select(0, rows)
    return last.feed_forward_chunk(last.attention.output(context, chosen))


def _attend(
    layer: Any,  # a BERT-layout layer: sparse_last_layer checks
    queries: torch.Tensor,
    hidden: torch.Tensor,
    real: RealTokens,
    mask: torch.Tensor,
) -> torch.Tensor:
    """The layer's attention of ``queries`` (sequence, rows, width) over the keys and values
    of the flat ``hidden``, put back into the grid, under ``mask`` (sequence, 1, rows,
    position): (sequence, rows, width)."""
    attention = layer.attention.self
    keys, values = (
        real.grid(projection(hidden)) for projection in (attention.key, attention.value)
    )
    return attend(attention, queries, keys, values, mask)
