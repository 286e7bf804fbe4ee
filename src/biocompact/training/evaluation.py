"""After training: held-out MLM loss / perplexity and a fill-mask probe, so a broken model shows."""

from __future__ import annotations

import math
from collections.abc import Sequence

import datasets
import torch
import torch.nn.functional as F
from transformers import PreTrainedModel, PreTrainedTokenizerBase, pipeline

from biocompact.models.documents import encoder_inputs
from biocompact.models.heads import mlm_head
from biocompact.models.last_layer import at_positions, enable_last_layer_at_positions
from biocompact.models.unpadded import hidden_at_positions, unpads
from biocompact.records.language_model import Prediction, ProbeResult
from biocompact.training.batches import MaskedBatcher
from biocompact.training.masking import IGNORE_INDEX
from biocompact.training.settings import Probe

EVAL_MASKING_SEED = 12345


def masked_lm_logits(
    model: PreTrainedModel, batch: dict[str, torch.Tensor], predicted_only: bool = False
) -> tuple[torch.Tensor, torch.Tensor]:
    """MLM logits and labels at the batch's ``masked_positions`` only, one row a position
    (a fixed number a sequence: the rows of unpredicted positions have the label
    ``IGNORE_INDEX``); neither the head nor the last layer's queries and feed-forward see
    the other tokens (``biocompact.models.last_layer``). On the CPU no layer sees the
    padding (``biocompact.models.unpadded``), and with ``predicted_only`` the rows of
    unpredicted positions are left out (a loss that ignores them is the same; where shapes
    are fixed they stay)."""
    positions = batch["masked_positions"]
    labels = batch["labels"].gather(1, positions)
    if unpads(model, batch):
        kept = labels != IGNORE_INDEX if predicted_only else None
        hidden = hidden_at_positions(model, batch, positions, kept)
        labels = labels if kept is None else labels[kept]
    else:
        extra = {"masked_positions": positions} if enable_last_layer_at_positions(model) else {}
        padded = model.base_model(**encoder_inputs(model, batch), **extra).last_hidden_state
        hidden = at_positions(padded, positions).flatten(0, 1)
    return mlm_head(model)(hidden), labels.flatten()


@torch.inference_mode()
def heldout_loss(
    model: PreTrainedModel, dataset: datasets.Dataset, batcher: MaskedBatcher, batch_size: int = 32
) -> tuple[float, int]:
    """Mean cross-entropy over masked held-out tokens (fixed masking seed) and their count."""
    model.eval()
    device = next(model.parameters()).device
    generator = torch.Generator().manual_seed(EVAL_MASKING_SEED)
    total, count = 0.0, 0
    for start in range(0, len(dataset), batch_size):
        batch = batcher(dataset[start : start + batch_size], generator)
        batch = {k: v.to(device) for k, v in batch.items()}
        logits, labels = masked_lm_logits(model, batch, predicted_only=True)
        total += float(F.cross_entropy(logits.float(), labels, reduction="sum"))
        count += int((labels != IGNORE_INDEX).sum())
    return total / max(count, 1), count


def fill_mask_probe(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    probes: Sequence[Probe],
    top_k: int = 5,
) -> list[ProbeResult]:
    """Each probe with the model's top-k predictions for its ``[MASK]``, as ``eval.json``'s
    ``fill_mask`` holds them."""
    fill = pipeline("fill-mask", model=model, tokenizer=tokenizer, top_k=top_k, device=model.device)  # type: ignore[call-overload]  # its tokenizer type names two subclasses of PreTrainedTokenizerBase only
    results = []
    for probe in probes:
        text = probe.text.replace("[MASK]", tokenizer.mask_token)
        predictions = fill(text)
        results.append(
            ProbeResult(
                text=probe.text,
                answer=probe.answer,
                predictions=[
                    Prediction(token=p["token_str"].strip(), score=float(p["score"]))
                    for p in predictions
                ],
            )
        )
    return results


def evaluate_language_model(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    validation: datasets.Dataset,
    batcher: MaskedBatcher,
    probes: Sequence[Probe],
) -> dict:
    """The held-out figures shared by pretraining and distillation, as fields of their
    ``eval.json`` record (``records.language_model.LanguageModelRecord``)."""
    loss, count = heldout_loss(model, validation, batcher)
    return {
        "parameters": sum(p.numel() for p in model.parameters()),
        "heldout_loss": loss,
        "perplexity": math.exp(loss),
        "heldout_tokens": count,
        "fill_mask": fill_mask_probe(model, tokenizer, probes),
    }
