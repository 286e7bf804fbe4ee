"""Two-segment inputs shared by sentence-order (ALBERT) and next-sentence (BERT) prediction.

A packed sequence is cut at a sentence end nearest its middle (a word that follows a
``.``, ``?`` or ``!`` token) or, if it holds no sentence end, at the word boundary nearest
its middle; the pair becomes ``[CLS] A [SEP] B [SEP]`` with token types 0 for
``[CLS] A [SEP]`` and 1 for ``B [SEP]``, then is masked like any MLM batch.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

import datasets
import torch
import torch.nn.functional as F
from transformers import PreTrainedModel, PreTrainedTokenizerBase

from biocompact.training.batches import MaskedBatcher, pad
from biocompact.training.evaluation import EVAL_MASKING_SEED, evaluate_language_model
from biocompact.training.objective import Objective
from biocompact.training.settings import Probe

SENTENCE_ENDS = (".", "?", "!")
# word-start markers of WordPiece (##), byte-level BPE (Ġ) and unigram (▁) pieces
_PIECE_MARKERS = "#Ġ▁"

Segment = tuple[list[int], list[int]]  # token ids, word ids


class PairBatcher(Protocol):
    """Makes two-segment batches on top of the MLM batcher ``inner``."""

    inner: MaskedBatcher

    def __call__(self, rows: dict, generator: torch.Generator) -> dict[str, torch.Tensor]: ...


def sentence_end_ids(tokenizer: PreTrainedTokenizerBase) -> frozenset[int]:
    """Ids of the vocabulary's pieces that are a sentence-final punctuation mark."""
    return frozenset(
        i
        for token, i in tokenizer.get_vocab().items()
        if token.lstrip(_PIECE_MARKERS) in SENTENCE_ENDS
    )


def split_point(ids: list[int], words: list[int], ends: frozenset[int]) -> int:
    """Where to cut a sequence of (unframed) tokens into two non-empty segments.

    The word start right after a sentence end (or a document separator, word id -1, of a
    fully packed sequence) nearest the middle; else the word start nearest the middle; else
    (a single word) the middle token.
    """
    middle = len(ids) / 2
    starts = [i for i in range(1, len(ids)) if words[i] >= 0 and words[i] != words[i - 1]]
    sentences = [i for i in starts if ids[i - 1] in ends or words[i - 1] < 0]
    candidates = sentences or starts
    if not candidates:
        return max(1, len(ids) // 2)
    return min(candidates, key=lambda i: (abs(i - middle), i))


def mask_pairs(
    inner: MaskedBatcher,
    rows: dict,
    pairs: list[tuple[Segment, Segment]],
    cls_token_id: int,
    sep_token_id: int,
    generator: torch.Generator,
) -> dict[str, torch.Tensor]:
    """Frame each (A, B) of ``rows`` as ``[CLS] A [SEP] B [SEP]``, mask with ``inner``, add
    ``token_type_ids``. A pair is one input: its tokens attend to each other, whatever
    documents its segments come from."""
    input_ids, word_ids, token_types = [], [], []
    for (first_ids, first_words), (second_ids, second_words) in pairs:
        input_ids.append([cls_token_id, *first_ids, sep_token_id, *second_ids, sep_token_id])
        word_ids.append([-1, *first_words, -1, *second_words, -1])
        token_types.append([0] * (len(first_ids) + 2) + [1] * (len(second_ids) + 1))
    framed = {**rows, "input_ids": input_ids, "word_ids": word_ids, "document_starts": None}
    batch = inner(framed, generator)
    return {**batch, "token_type_ids": pad(token_types, 0, batch["input_ids"].shape[1])}


@torch.inference_mode()
def pair_accuracy(
    pair_logits: Callable[[dict[str, torch.Tensor]], torch.Tensor],
    dataset: datasets.Dataset,
    batcher: Callable[[dict, torch.Generator], dict[str, torch.Tensor]],
    label: str,
    device: torch.device,
    batch_size: int = 32,
) -> float:
    """Share of held-out pairs whose ``label`` the two-way ``pair_logits`` predict right (fixed seed)."""
    generator = torch.Generator().manual_seed(EVAL_MASKING_SEED)
    right = 0
    for start in range(0, len(dataset), batch_size):
        batch = {
            k: v.to(device)
            for k, v in batcher(dataset[start : start + batch_size], generator).items()
        }
        right += int((pair_logits(batch).argmax(-1) == batch[label]).sum())
    return right / max(len(dataset), 1)


class MaskedLmAndPairTask(Objective):
    """MLM at the masked positions + a two-way prediction about the segment pair (SOP, NSP).

    Subclasses give ``logits`` (MLM logits at the batch's ``masked_positions``, one row
    each, and pair logits per sequence), the batch key ``pair_label`` and the ``eval.json``
    key ``accuracy_key``.
    """

    pair_label: str
    accuracy_key: str

    def __init__(self, model: PreTrainedModel):
        super().__init__()
        self.model = model

    def logits(self, batch: dict[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
        raise NotImplementedError

    def losses(
        self, batch: dict[str, torch.Tensor]
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """MLM loss, pair loss and the pair logits of ``batch``."""
        mlm_logits, pair_logits = self.logits(batch)
        labels = batch["labels"].gather(1, batch["masked_positions"]).flatten()
        mlm = F.cross_entropy(mlm_logits.float(), labels)
        return mlm, F.cross_entropy(pair_logits.float(), batch[self.pair_label]), pair_logits

    def masked_lm(self) -> PreTrainedModel:
        """The model whose held-out MLM loss and fill-mask probes ``eval.json`` reports."""
        return self.model

    def model_to_save(self) -> PreTrainedModel:
        return self.model

    def evaluate(
        self,
        tokenizer: PreTrainedTokenizerBase,
        validation: datasets.Dataset,
        batcher: PairBatcher,
        probes: Sequence[Probe],
    ) -> dict:
        """Held-out MLM loss on whole sequences (comparable with the other families) + pair accuracy."""
        return {
            **evaluate_language_model(
                self.masked_lm(), tokenizer, validation, batcher.inner, probes
            ),
            self.accuracy_key: pair_accuracy(
                lambda batch: self.logits(batch)[1],
                validation,
                batcher,
                self.pair_label,
                self.model.device,
            ),
        }
