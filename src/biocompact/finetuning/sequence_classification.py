"""Relation extraction (and other single-label sentence classification) from the [CLS] head."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import IO

import numpy as np
from datasets import Dataset
from transformers import (
    AutoModelForSequenceClassification,
    DataCollatorWithPadding,
    PreTrainedTokenizerBase,
)

from biocompact.finetuning.family import Encoded, TaskFamily
from biocompact.finetuning.metrics import Metric, classification_metrics
from biocompact.finetuning.readers import LabelledText, read_re_biobert_tsv, read_re_blue_tsv


class SequenceClassification(TaskFamily):
    """One text, one label; scored with accuracy and binary/micro/macro F1."""

    name = "re"
    model_class = AutoModelForSequenceClassification
    readers = {"biobert_tsv": read_re_biobert_tsv, "blue_tsv": read_re_blue_tsv}
    default_metric = "micro_f1"

    def metrics(self, task: Mapping, labels: Sequence[str]) -> dict[str, Metric]:
        return classification_metrics(
            labels, task.get("negative_label"), task.get("positive_labels")
        )

    def primary_metric(self, task: Mapping, labels: Sequence[str]) -> str:
        """Binary tasks default to ``binary_f1``, others to ``micro_f1``."""
        if not task.get("metric") and "binary_f1" in self.metrics(task, labels):
            return "binary_f1"
        return super().primary_metric(task, labels)

    def gold(self, examples: Sequence[LabelledText]) -> list[str]:
        return [example.label for example in examples]

    def encode(
        self,
        examples: Sequence[LabelledText],
        tokenizer: PreTrainedTokenizerBase,
        labels: Sequence[str],
        task: Mapping,
    ) -> Encoded:
        """Tokenise each text, truncated to max_seq_length; count truncated examples."""
        label_ids = {label: i for i, label in enumerate(labels)}
        encoding = tokenizer(
            [example.text for example in examples],
            truncation=True,
            max_length=task["hyperparameters"]["max_seq_length"],
        )
        truncated = sum(bool(item.overflowing) for item in encoding.encodings)
        dataset = Dataset.from_dict(
            {**encoding, "labels": [label_ids[example.label] for example in examples]}
        )
        return Encoded(dataset, stats={"truncated_examples": truncated})

    def decode(self, logits: np.ndarray, encoded: Encoded, labels: Sequence[str]) -> list[str]:
        return [labels[index] for index in logits.argmax(-1)]

    def majority(
        self, train: Sequence[LabelledText], examples: Sequence[LabelledText]
    ) -> list[str]:
        """The most frequent training label (ties: the first in sorted order)."""
        counts = Counter(self.gold(train))
        most_frequent = max(sorted(counts), key=counts.__getitem__)
        return [most_frequent] * len(examples)

    def data_collator(self, tokenizer: PreTrainedTokenizerBase) -> Callable:
        return DataCollatorWithPadding(tokenizer)

    def write_predictions(
        self, handle: IO[str], examples: Sequence[LabelledText], predictions: Sequence
    ) -> None:
        """``index<TAB>gold<TAB>predicted`` after a header line, one row per example."""
        handle.write("index\tgold\tpredicted\n")
        for example, predicted in zip(examples, predictions):
            handle.write(f"{example.id}\t{example.label}\t{predicted}\n")
