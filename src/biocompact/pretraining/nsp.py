"""BERT's original objective: masked language modelling + next-sentence prediction (NSP).

Each packed sequence is cut into segments A and B (``segments.split_point``). With
probability 0.5 B stays the true continuation (label 0, IsNext, as in transformers'
``BertForPreTraining``); otherwise it becomes the second segment of a random row of the
batch that shares no document with it (label 1, NotNext): the batch is a random sample
of the corpus, so that is BERT's random document. With full packing (several documents a
sequence, ``tokenized_corpus``) the true B may cross into the next document of the corpus,
as RoBERTa's FULL-SENTENCES inputs do. A random B is cut to the true B's length,
then the longer segment loses tokens at its end until the pair is no longer than the
packed sequence, so never longer than ``max_seq_length``. The model is a
``BertForPreTraining``: the NSP head reads the pooled ``[CLS]`` state, and the saved folder
loads as ``AutoModelForMaskedLM`` (NSP head dropped) or, with the pooler, as a classifier.
"""

from __future__ import annotations

import torch
from transformers import (
    BertConfig,
    BertForMaskedLM,
    BertForPreTraining,
    PreTrainedTokenizerBase,
)

from biocompact.models.documents import encoder_inputs
from biocompact.models.last_layer import at_positions
from biocompact.pretraining.segments import (
    MaskedLmAndPairTask,
    Segment,
    mask_pairs,
    sentence_end_ids,
    split_point,
)
from biocompact.pretraining.settings import ElectraOptions
from biocompact.training.batches import MaskedBatcher
from biocompact.training.objective import Objective

RANDOM_NEXT_PROBABILITY = 0.5
DOCUMENT = "document"  # the packed corpus's column: each sequence's (first) document index
LAST_DOCUMENT = "last_document"  # its last document's index


def truncate_pair(first: Segment, second: Segment, limit: int) -> tuple[Segment, Segment]:
    """Drop tokens at the end of the longer segment (B on a tie) until both hold ``limit`` at most."""
    a, b = len(first[0]), len(second[0])
    while a + b > limit:
        if a > b:
            a -= 1
        else:
            b -= 1
    return (first[0][:a], first[1][:a]), (second[0][:b], second[1][:b])


def _disjoint(first: tuple[int, int], second: tuple[int, int]) -> bool:
    """Whether two sequences' (first, last) document ranges share no document."""
    return first[1] < second[0] or second[1] < first[0]


def _following(words: list[int], previous: list[int]) -> list[int]:
    """``words`` renumbered to start after the last of ``previous`` (whole words stay apart)."""
    if not words:
        return words
    return [word - words[0] + previous[-1] + 1 for word in words]


class NextSentenceBatcher:
    """Wraps a ``MaskedBatcher``: A + true or random B per row, then masked.

    Adds ``token_type_ids`` and ``next_sentence_label`` (1: B from another document). Row
    batches need the packed corpus's ``document`` and ``last_document`` columns.
    """

    def __init__(
        self, inner: MaskedBatcher, cls_token_id: int, sep_token_id: int, ends: frozenset[int]
    ):
        self.inner = inner
        self.cls_token_id = cls_token_id
        self.sep_token_id = sep_token_id
        self.ends = ends

    def __call__(self, rows: dict, generator: torch.Generator) -> dict[str, torch.Tensor]:
        segments = []
        for ids, words in zip(rows["input_ids"], rows["word_ids"]):
            ids, words = ids[1:-1], words[1:-1]  # drop [CLS] ... [SEP]
            cut = split_point(ids, words, self.ends)
            segments.append(((ids[:cut], words[:cut]), (ids[cut:], words[cut:])))
        documents = list(zip(rows[DOCUMENT], rows[LAST_DOCUMENT]))
        replace = (
            torch.rand(len(segments), generator=generator) < RANDOM_NEXT_PROBABILITY
        ).tolist()
        picks = torch.rand(len(segments), generator=generator).tolist()
        pairs, labels = [], []
        for i, ((first, second), ids) in enumerate(zip(segments, rows["input_ids"])):
            donors = [
                j
                for j, (_, other) in enumerate(segments)
                if _disjoint(documents[j], documents[i]) and other[0]
            ]
            random_next = replace[i] and bool(donors) and bool(second[0])
            if random_next:
                other_ids, other_words = segments[donors[int(picks[i] * len(donors))]][1]
                second = (
                    other_ids[: len(second[0])],
                    _following(other_words[: len(second[0])], first[1]),
                )
            pairs.append(truncate_pair(first, second, max(len(ids) - 3, 1)))
            labels.append(int(random_next))
        batch = mask_pairs(self.inner, rows, pairs, self.cls_token_id, self.sep_token_id, generator)
        return {**batch, "next_sentence_label": torch.tensor(labels)}


def masked_lm_view(model: BertForPreTraining) -> BertForMaskedLM:
    """A ``BertForMaskedLM`` sharing ``model``'s encoder and MLM head (what the saved folder loads as)."""
    with torch.device("meta"):
        view = BertForMaskedLM(model.config)
    view.bert, view.cls.predictions = model.bert, model.cls.predictions
    return view


class MaskedLmAndNextSentence(MaskedLmAndPairTask):
    """BERT's loss: MLM at the masked positions + NSP cross-entropy on the pooled ``[CLS]`` state."""

    model: BertForPreTraining
    pair_label = "next_sentence_label"
    accuracy_key = "next_sentence_accuracy"

    def logits(self, batch: dict[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
        """MLM logits at the masked positions and next-sentence logits per sequence."""
        outputs = self.model.bert(**encoder_inputs(self.model, batch))
        hidden = at_positions(outputs.last_hidden_state, batch["masked_positions"])
        return (
            self.model.cls.predictions(hidden).flatten(0, 1),
            self.model.cls.seq_relationship(outputs.pooler_output),
        )

    def forward(
        self, batch: dict[str, torch.Tensor]
    ) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        mlm, next_sentence, next_logits = self.losses(batch)
        accuracy = (next_logits.argmax(-1) == batch[self.pair_label]).float().mean()
        terms = {
            "loss_mlm": mlm.detach(),
            "loss_nsp": next_sentence.detach(),
            "accuracy_nsp": accuracy,
        }
        return mlm + next_sentence, terms

    def masked_lm(self) -> BertForMaskedLM:
        """Held-out figures on the ``BertForMaskedLM`` view (what the saved folder loads as)."""
        return masked_lm_view(self.model)


def build_nsp(
    config: BertConfig | None,
    location: str | None,
    options: ElectraOptions,
    tokenizer: PreTrainedTokenizerBase,
    batcher: MaskedBatcher,
) -> tuple[Objective, NextSentenceBatcher]:
    """MLM + NSP on a new ``BertForPreTraining`` of ``config`` or the saved BERT at ``location``."""
    if location:
        model = BertForPreTraining.from_pretrained(location)
    else:
        assert config is not None  # a new model: config given
        model = BertForPreTraining(config)
    wrapped = NextSentenceBatcher(
        batcher, tokenizer.cls_token_id, tokenizer.sep_token_id, sentence_end_ids(tokenizer)
    )
    return MaskedLmAndNextSentence(model), wrapped
