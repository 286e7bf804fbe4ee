"""Several documents in one sequence, each attending only to itself.

A batch's ``documents`` (sequence x position) numbers the documents of every sequence
(``biocompact.training.batches``; -1 at padding). The encoder then gets a block-diagonal
attention mask (a token attends to the tokens of its own document, padding to padding) and
position ids that restart at every document, so every document gets the hidden states it
would get alone (tests/models/test_documents.py, for every model family). Transformers
passes a 4-D mask to the attention as it is: a boolean one (True: attend) to SDPA, an
additive one to eager attention; ModernBERT takes one per attention type, its sliding
window kept in the local one. A batch without ``documents`` (a segment pair, a
fine-tuning batch) keeps its 2-D padding mask.
"""

from __future__ import annotations

from typing import Any

import torch
from transformers import ModernBertModel, PreTrainedModel

ATTENTION_IMPLEMENTATIONS = ("sdpa", "eager")  # those that take a 4-D mask as it is


def document_mask(documents: torch.Tensor) -> torch.Tensor:
    """(batch, 1, query, key) bool: True where query and key are in the same document (padding
    counts as one document, so that no query row is empty)."""
    return documents[:, None, :, None] == documents[:, None, None, :]


def token_pairs(batch: dict[str, torch.Tensor]) -> torch.Tensor:
    """(batch, 1, query, key) bool: True where query and key are real tokens of the same
    document (of the same sequence, for a batch without ``documents``)."""
    real = batch["attention_mask"].bool()
    pairs = real[:, None, :, None] & real[:, None, None, :]
    if "documents" in batch:
        pairs = pairs & document_mask(batch["documents"])
    return pairs


def document_positions(documents: torch.Tensor, first: int = 0) -> torch.Tensor:
    """Position ids that restart at ``first`` at every document of a sequence."""
    index = torch.arange(documents.shape[1], device=documents.device).expand_as(documents)
    starts = torch.ones_like(documents, dtype=torch.bool)
    starts[:, 1:] = documents[:, 1:] != documents[:, :-1]
    start_index = torch.where(starts, index, 0).cummax(dim=1).values
    return index - start_index + first


def first_position(model: PreTrainedModel) -> int:
    """The position id of a sequence's first token: ``pad_token_id + 1`` for RoBERTa-style
    embeddings (which number positions after the padding index), 0 for the others."""
    embeddings = getattr(model.base_model, "embeddings", None)
    if embeddings is not None and hasattr(embeddings, "create_position_ids_from_input_ids"):
        return embeddings.padding_idx + 1
    return 0


def encoder_inputs(model: PreTrainedModel, batch: dict[str, torch.Tensor]) -> dict:
    """The keyword arguments of ``model.base_model`` for ``batch``: token ids, the attention
    mask (block-diagonal over ``documents`` where the batch has them), position ids and
    token types where the batch has them."""
    inputs: dict[str, Any] = {
        "input_ids": batch["input_ids"],
        "attention_mask": batch["attention_mask"],
    }
    if "token_type_ids" in batch:
        inputs["token_type_ids"] = batch["token_type_ids"]
    if "documents" not in batch:
        return inputs
    implementation = model.config._attn_implementation
    if implementation not in ATTENTION_IMPLEMENTATIONS:
        raise ValueError(
            f"{type(model).__name__} uses {implementation} attention: documents packed in one "
            f"sequence need one of {ATTENTION_IMPLEMENTATIONS}, which take a 4-D mask"
        )
    documents = batch["documents"]
    mask = document_mask(documents)
    base = model.base_model
    if isinstance(base, ModernBertModel):
        offsets = torch.arange(documents.shape[1], device=documents.device)
        window = (offsets[:, None] - offsets[None, :]).abs() <= base.config.sliding_window
        masks = {"full_attention": mask, "sliding_attention": mask & window}
        inputs["attention_mask"] = {
            kind: _for(implementation, m, model.dtype) for kind, m in masks.items()
        }
    else:
        inputs["attention_mask"] = _for(implementation, mask, model.dtype)
    inputs["position_ids"] = document_positions(documents, first_position(model))
    return inputs


def _for(implementation: str, mask: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """A boolean mask as ``implementation`` reads it: as it is (SDPA) or additive in the
    model's ``dtype`` (eager)."""
    if implementation == "sdpa":
        return mask
    return torch.zeros(mask.shape, dtype=dtype, device=mask.device).masked_fill(
        ~mask, torch.finfo(dtype).min
    )
