"""ALBERT's objective (seed 004's BioM-ALBERT): masked language modelling + sentence-order prediction.

Each packed sequence is cut into two segments, at a sentence end nearest its middle
(a word that follows a ``.``, ``?`` or ``!`` token) or, if it holds no sentence end, at
the word boundary nearest its middle; with probability 0.5 the segments swap places
and the sequence is labelled 1 (swapped). The input becomes
``[CLS] A [SEP] B [SEP]`` with token types 0 for ``[CLS] A [SEP]`` and 1 for ``B [SEP]``.
Parameter sharing and factorised embeddings come from ``AlbertConfig``
(``num_hidden_groups``, ``embedding_size``).
"""

from __future__ import annotations

import datasets
import torch
import torch.nn.functional as F
from torch import nn
from transformers import AlbertForMaskedLM, PretrainedConfig, PreTrainedModel, PreTrainedTokenizerBase

from biocompact.training.batches import MaskedBatcher, pad
from biocompact.training.evaluation import EVAL_MASKING_SEED, evaluate_language_model
from biocompact.training.masking import IGNORE_INDEX
from biocompact.training.objective import Objective

SWAP_PROBABILITY = 0.5
SENTENCE_ENDS = (".", "?", "!")
# word-start markers of WordPiece (##), byte-level BPE (Ġ) and unigram (▁) pieces
_PIECE_MARKERS = "#Ġ▁"


def sentence_end_ids(tokenizer: PreTrainedTokenizerBase) -> frozenset[int]:
    """Ids of the vocabulary's pieces that are a sentence-final punctuation mark."""
    return frozenset(i for token, i in tokenizer.get_vocab().items() if token.lstrip(_PIECE_MARKERS) in SENTENCE_ENDS)


def split_point(ids: list[int], words: list[int], ends: frozenset[int]) -> int:
    """Where to cut a sequence of (unframed) tokens into two non-empty segments.

    The word start right after a sentence end nearest the middle; else the word start
    nearest the middle; else (a single word) the middle token.
    """
    middle = len(ids) / 2
    starts = [i for i in range(1, len(ids)) if words[i] != words[i - 1]]
    sentences = [i for i in starts if ids[i - 1] in ends]
    candidates = sentences or starts
    if not candidates:
        return max(1, len(ids) // 2)
    return min(candidates, key=lambda i: (abs(i - middle), i))


class SentenceOrderBatcher:
    """Wraps a ``MaskedBatcher``: two segments per row, swapped at random, then masked.

    Adds ``token_type_ids`` and ``sentence_order_label`` (1: swapped) to the batch.
    """

    def __init__(self, inner: MaskedBatcher, cls_token_id: int, sep_token_id: int, ends: frozenset[int]):
        self.inner = inner
        self.cls_token_id = cls_token_id
        self.sep_token_id = sep_token_id
        self.ends = ends

    def __call__(self, rows: dict, generator: torch.Generator) -> dict[str, torch.Tensor]:
        input_ids, word_ids, token_types, order = [], [], [], []
        swaps = torch.rand(len(rows["input_ids"]), generator=generator) < SWAP_PROBABILITY
        for ids, words, swap in zip(rows["input_ids"], rows["word_ids"], swaps.tolist()):
            ids, words = ids[1:-1], words[1:-1]  # drop [CLS] ... [SEP]
            swap = swap and len(ids) > 1
            cut = split_point(ids, words, self.ends)
            first, second = (slice(cut, None), slice(0, cut)) if swap else (slice(0, cut), slice(cut, None))
            input_ids.append([self.cls_token_id, *ids[first], self.sep_token_id, *ids[second], self.sep_token_id])
            word_ids.append([-1, *words[first], -1, *words[second], -1])
            token_types.append([0] * (len(ids[first]) + 2) + [1] * (len(ids[second]) + 1))
            order.append(int(swap))
        batch = self.inner({**rows, "input_ids": input_ids, "word_ids": word_ids}, generator)
        return {**batch, "token_type_ids": pad(token_types, 0), "sentence_order_label": torch.tensor(order)}


class MaskedLmAndSentenceOrder(Objective):
    """ALBERT's loss: MLM at the masked positions + SOP on the ``[CLS]`` state (pooler + classifier)."""

    def __init__(self, model: AlbertForMaskedLM):
        super().__init__()
        self.model = model
        hidden = model.config.hidden_size
        self.sentence_order_head = nn.Sequential(
            nn.Linear(hidden, hidden), nn.Tanh(), nn.Dropout(model.config.classifier_dropout_prob), nn.Linear(hidden, 2)
        )

    def logits(self, batch: dict[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
        """MLM logits at the masked positions and sentence-order logits per sequence."""
        hidden = self.model.albert(
            input_ids=batch["input_ids"], attention_mask=batch["attention_mask"], token_type_ids=batch["token_type_ids"]
        ).last_hidden_state
        selected = batch["labels"] != IGNORE_INDEX
        return self.model.predictions(hidden[selected]), self.sentence_order_head(hidden[:, 0])

    def forward(self, batch: dict[str, torch.Tensor]) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        mlm_logits, order_logits = self.logits(batch)
        mlm = F.cross_entropy(mlm_logits.float(), batch["labels"][batch["labels"] != IGNORE_INDEX])
        order = F.cross_entropy(order_logits.float(), batch["sentence_order_label"])
        return mlm + order, {"loss_mlm": mlm.detach(), "loss_sop": order.detach()}

    def model_to_save(self) -> PreTrainedModel:
        return self.model

    @torch.inference_mode()
    def sentence_order_accuracy(
        self, dataset: datasets.Dataset, batcher: SentenceOrderBatcher, batch_size: int = 32
    ) -> float:
        """Share of held-out sequences whose segment order is predicted right (fixed seed)."""
        self.eval()
        device = next(self.parameters()).device
        generator = torch.Generator().manual_seed(EVAL_MASKING_SEED)
        right = 0
        for start in range(0, len(dataset), batch_size):
            batch = {k: v.to(device) for k, v in batcher(dataset[start : start + batch_size], generator).items()}
            right += int((self.logits(batch)[1].argmax(-1) == batch["sentence_order_label"]).sum())
        return right / max(len(dataset), 1)

    def evaluate(
        self,
        tokenizer: PreTrainedTokenizerBase,
        validation: datasets.Dataset,
        batcher: SentenceOrderBatcher,
        probes: list[dict],
    ) -> dict:
        """Held-out MLM loss on whole sequences (comparable with the other families) + SOP accuracy."""
        return {
            **evaluate_language_model(self.model, tokenizer, validation, batcher.inner, probes),
            "sentence_order_accuracy": self.sentence_order_accuracy(validation, batcher),
        }


def build_albert(
    config: PretrainedConfig | None,
    location: str | None,
    options: dict,
    tokenizer: PreTrainedTokenizerBase,
    batcher: MaskedBatcher,
) -> tuple[Objective, SentenceOrderBatcher]:
    """MLM + SOP on a new ALBERT of ``config`` or the saved one at ``location``."""
    model = AlbertForMaskedLM.from_pretrained(location) if location else AlbertForMaskedLM(config)
    wrapped = SentenceOrderBatcher(batcher, tokenizer.cls_token_id, tokenizer.sep_token_id, sentence_end_ids(tokenizer))
    return MaskedLmAndSentenceOrder(model), wrapped
