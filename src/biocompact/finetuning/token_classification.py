"""Named entity recognition as token classification, scored per word with seqeval."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import IO, TYPE_CHECKING

import numpy as np

from biocompact.finetuning.family import Encoded, TaskFamily, dataset_of
from biocompact.finetuning.metrics import Metric, ner_metrics
from biocompact.finetuning.predictions import tagged_rows
from biocompact.finetuning.unit_statistics import ComparedRuns, UnitStatistic, entity_statistic
from biocompact.taskfiles.readers import TaggedSentence

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

    from biocompact.taskfiles.settings import FinetuningTask

IGNORED = -100  # label id the loss skips
OUTSIDE = "O"


def _continuation(tag: str, label_ids: Mapping[str, int]) -> int:
    """Label id for a non-first sub-token: B-X continues as I-X (when I-X is a label)."""
    inside = "I" + tag[1:] if tag.startswith("B-") else tag
    return label_ids.get(inside, label_ids[tag])


class TokenClassification(TaskFamily):
    """Sentences of words with IOB2 tags; each word is predicted from its first sub-token."""

    name = "ner"
    auto_model = "AutoModelForTokenClassification"
    example = TaggedSentence
    default_metric = "f1"
    pipeline_tag = "token-classification"
    prediction_rows = staticmethod(tagged_rows)

    def metrics(self, task: FinetuningTask, labels: Sequence[str]) -> dict[str, Metric]:
        return ner_metrics(task.label_all_subtokens, labels)

    def gold(self, examples: Sequence[TaggedSentence]) -> list[list[str]]:
        return [sentence.tags for sentence in examples]

    def encode(
        self,
        examples: Sequence[TaggedSentence],
        tokenizer: PreTrainedTokenizerBase,
        labels: Sequence[str],
        task: FinetuningTask,
    ) -> Encoded:
        """Label the first sub-token of each word (all sub-tokens with
        ``label_all_subtokens``); count words that got no sub-token in the input."""
        label_ids = {label: i for i, label in enumerate(labels)}
        label_all = task.label_all_subtokens
        encoding = tokenizer(
            [sentence.tokens for sentence in examples],
            is_split_into_words=True,
            truncation=True,
            max_length=task.training.max_seq_length,
        )
        rows, alignment = [], []
        truncated = untokenizable = 0
        for index, sentence in enumerate(examples):
            word_ids = encoding.word_ids(index)
            row, previous = [], None
            first: list[int | None] = [None] * len(sentence.tokens)
            for position, word in enumerate(word_ids):
                if word is None:
                    row.append(IGNORED)
                elif word != previous:
                    row.append(label_ids[sentence.tags[word]])
                    first[word] = position
                else:
                    row.append(
                        _continuation(sentence.tags[word], label_ids) if label_all else IGNORED
                    )
                previous = word
            last = max((word for word in word_ids if word is not None), default=-1)
            if encoding.encodings[index].overflowing:
                truncated += len(sentence.tokens) - 1 - last
            untokenizable += first[: last + 1].count(None)
            rows.append(row)
            alignment.append(first)
        dataset = dataset_of({**encoding, "labels": rows})
        stats = {"truncated_words": truncated, "untokenizable_words": untokenizable}
        return Encoded(dataset, alignment, stats)

    def decode(
        self, logits: np.ndarray, encoded: Encoded, labels: Sequence[str]
    ) -> list[list[str]]:
        """Tag of each word from its first sub-token; words without one are predicted O."""
        predicted = logits.argmax(-1)
        return [
            [OUTSIDE if position is None else labels[row[position]] for position in first]
            for row, first in zip(predicted, encoded.alignment)
        ]

    def majority(
        self, train: Sequence[TaggedSentence], examples: Sequence[TaggedSentence]
    ) -> list[list[str]]:
        """Every word outside any entity."""
        return [[OUTSIDE] * len(sentence.tokens) for sentence in examples]

    def data_collator(self, tokenizer: PreTrainedTokenizerBase) -> Callable:
        from transformers import DataCollatorForTokenClassification

        return DataCollatorForTokenClassification(tokenizer, label_pad_token_id=IGNORED)

    def write_predictions(
        self, handle: IO[str], examples: Sequence[TaggedSentence], predictions: Sequence
    ) -> None:
        """CoNLL form: ``token<TAB>gold<TAB>predicted``, a blank line after each sentence."""
        for sentence, tags in zip(examples, predictions):
            for token, gold, predicted in zip(sentence.tokens, sentence.tags, tags):
                handle.write(f"{token}\t{gold}\t{predicted}\n")
            handle.write("\n")

    def unit_statistic(self, metric: str, runs: ComparedRuns) -> UnitStatistic:
        return entity_statistic(metric, runs.labels)

    def resampled_unit(self, metric: str) -> str:
        return "sentences"
