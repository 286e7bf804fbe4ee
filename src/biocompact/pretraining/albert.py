"""ALBERT's objective (Alrowili and Shanker's BioM-ALBERT): masked language modelling + sentence-order prediction.

Each packed sequence is cut into two segments (``segments.split_point``); with
probability 0.5 the segments swap places and the sequence is labelled 1 (swapped).
Parameter sharing and factorised embeddings come from ``AlbertConfig``
(``num_hidden_groups``, ``embedding_size``).
"""

from __future__ import annotations

import copy

import torch
from torch import nn
from transformers import AlbertConfig, AlbertForMaskedLM, PreTrainedTokenizerBase

from biocompact.models.documents import encoder_inputs
from biocompact.models.last_layer import at_positions
from biocompact.pretraining.segments import (
    MaskedLmAndPairTask,
    mask_pairs,
    sentence_end_ids,
    split_point,
)
from biocompact.pretraining.settings import ElectraOptions
from biocompact.training.batches import MaskedBatcher
from biocompact.training.objective import Objective

SWAP_PROBABILITY = 0.5


class SentenceOrderBatcher:
    """Wraps a ``MaskedBatcher``: two segments per row, swapped at random, then masked.

    Adds ``token_type_ids`` and ``sentence_order_label`` (1: swapped) to the batch.
    """

    def __init__(
        self, inner: MaskedBatcher, cls_token_id: int, sep_token_id: int, ends: frozenset[int]
    ):
        self.inner = inner
        self.cls_token_id = cls_token_id
        self.sep_token_id = sep_token_id
        self.ends = ends

    def __call__(self, rows: dict, generator: torch.Generator) -> dict[str, torch.Tensor]:
        pairs, order = [], []
        swaps = torch.rand(len(rows["input_ids"]), generator=generator) < SWAP_PROBABILITY
        for ids, words, swap in zip(rows["input_ids"], rows["word_ids"], swaps.tolist()):
            ids, words = ids[1:-1], words[1:-1]  # drop [CLS] ... [SEP]
            swap = swap and len(ids) > 1
            cut = split_point(ids, words, self.ends)
            first, second = (ids[:cut], words[:cut]), (ids[cut:], words[cut:])
            pairs.append((second, first) if swap else (first, second))
            order.append(int(swap))
        batch = mask_pairs(self.inner, rows, pairs, self.cls_token_id, self.sep_token_id, generator)
        return {**batch, "sentence_order_label": torch.tensor(order)}


class MaskedLmAndSentenceOrder(MaskedLmAndPairTask):
    """ALBERT's loss: MLM at the masked positions + SOP on the ``[CLS]`` state (pooler + classifier)."""

    model: AlbertForMaskedLM
    pair_label = "sentence_order_label"
    accuracy_key = "sentence_order_accuracy"

    def __init__(self, model: AlbertForMaskedLM):
        super().__init__(model)
        hidden = model.config.hidden_size
        self.sentence_order_head = nn.Sequential(
            nn.Linear(hidden, hidden),
            nn.Tanh(),
            nn.Dropout(model.config.classifier_dropout_prob),
            nn.Linear(hidden, 2),
        )

    def logits(self, batch: dict[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
        """MLM logits at the masked positions and sentence-order logits per sequence."""
        hidden = self.model.albert(**encoder_inputs(self.model, batch)).last_hidden_state
        return (
            self.model.predictions(at_positions(hidden, batch["masked_positions"])).flatten(0, 1),
            self.sentence_order_head(hidden[:, 0]),
        )

    def forward(
        self, batch: dict[str, torch.Tensor]
    ) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        mlm, order, _ = self.losses(batch)
        return mlm + order, {"loss_mlm": mlm.detach(), "loss_sop": order.detach()}


def build_albert(
    config: AlbertConfig | None,
    location: str | None,
    options: ElectraOptions,
    tokenizer: PreTrainedTokenizerBase,
    batcher: MaskedBatcher,
) -> tuple[Objective, SentenceOrderBatcher]:
    """MLM + SOP on a new ALBERT of ``config`` or the saved one at ``location``."""
    if location:
        model = AlbertForMaskedLM.from_pretrained(location)
    else:
        assert config is not None  # a new model: config given
        model = AlbertForMaskedLM(config)
    framed = copy.copy(batcher)
    framed.length = batcher.length + 1  # a pair holds one [SEP] more than its packed sequence
    wrapped = SentenceOrderBatcher(
        framed, tokenizer.cls_token_id, tokenizer.sep_token_id, sentence_end_ids(tokenizer)
    )
    return MaskedLmAndSentenceOrder(model), wrapped
