"""Single-label text (or text pair) classification from the [CLS] head: relation
extraction, single-label document classification, NLI."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING

import numpy as np

from biocompact.finetuning.family import Encoded, TaskFamily, dataset_of
from biocompact.finetuning.metrics import (
    POSITIVE_BINARY_LABEL,
    Metric,
    classification_metrics,
    positive_classes,
)
from biocompact.finetuning.predictions import label_rows
from biocompact.finetuning.unit_statistics import ComparedRuns, UnitStatistic, class_statistic
from biocompact.taskfiles.readers import LabelledText

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

    from biocompact.taskfiles.settings import FinetuningTask


class SequenceClassification(TaskFamily):
    """One text (or pair), one label; scored with accuracy and binary/micro/macro F1."""

    auto_model = "AutoModelForSequenceClassification"
    example = LabelledText
    pipeline_tag = "text-classification"
    prediction_rows = staticmethod(label_rows)

    def __init__(
        self,
        name: str,
        default_metric: str = "micro_f1",
        binary_default: bool = True,
    ) -> None:
        self.name = name
        self.default_metric = default_metric
        self.binary_default = binary_default

    def metrics(self, task: FinetuningTask, labels: Sequence[str]) -> dict[str, Metric]:
        return classification_metrics(labels, task.negative_label, task.positive_labels)

    def primary_metric(self, task: FinetuningTask, labels: Sequence[str]) -> str:
        """The task's metric; else ``binary_f1`` for 0/1 tasks (when ``binary_default``),
        else the family default."""
        binary = self.binary_default and "binary_f1" in self.metrics(task, labels)
        if not task.metric and binary:
            return "binary_f1"
        return super().primary_metric(task, labels)

    def gold(self, examples: Sequence[LabelledText]) -> list[str]:
        return [example.label for example in examples]

    def encode(
        self,
        examples: Sequence[LabelledText],
        tokenizer: PreTrainedTokenizerBase,
        labels: Sequence[str],
        task: FinetuningTask,
    ) -> Encoded:
        """Tokenise each text (with its pair), truncated to max_seq_length (the longer of
        the pair first); count truncated examples. Label ids only when every example has
        a label (unlabelled text, e.g. distillation transfer data, has an empty one)."""
        label_ids = {label: i for i, label in enumerate(labels)}
        pairs = [example.text_pair for example in examples]
        if any(pair is None for pair in pairs) and any(pair is not None for pair in pairs):
            raise ValueError("examples mix single texts and text pairs")
        encoding = tokenizer(
            [example.text for example in examples],
            None if pairs[0] is None else pairs,
            truncation=True,
            max_length=task.training.max_seq_length,
        )
        truncated = sum(bool(item.overflowing) for item in encoding.encodings)
        columns = dict(encoding)
        if all(example.label for example in examples):
            columns["labels"] = [label_ids[example.label] for example in examples]
        return Encoded(dataset_of(columns), stats={"truncated_examples": truncated})

    def decode(self, logits: np.ndarray, encoded: Encoded, labels: Sequence[str]) -> list[str]:
        return [labels[index] for index in logits.argmax(-1)]

    def majority(self, train: Sequence[LabelledText], examples: Sequence[LabelledText]) -> list:
        """The most frequent training label (ties: the first in sorted order)."""
        counts = Counter(self.gold(train))
        most_frequent = max(sorted(counts), key=counts.__getitem__)
        return [most_frequent] * len(examples)

    def all_positive(
        self,
        train: Sequence[LabelledText],
        examples: Sequence[LabelledText],
        task: FinetuningTask,
        labels: Sequence[str],
    ) -> list | None:
        """The positive class for every example where the primary metric is an F1 over
        positive classes (``binary_f1``: ``1``; ``micro_f1`` without some label: its most
        frequent positive training class, ties the first in sorted order); None for accuracy,
        macro-F1 or a micro-F1 over every label (accuracy), whose strongest constant is the
        majority class."""
        metric = self.primary_metric(task, labels)
        if metric == "binary_f1":
            positives = [POSITIVE_BINARY_LABEL]
        elif metric == "micro_f1":
            positives = positive_classes(labels, task.negative_label, task.positive_labels)
            if set(positives) >= set(labels):
                return None
        else:
            return None
        counts = Counter(label for label in self.gold(train) if label in positives)
        chosen = max(sorted(positives), key=lambda label: counts[label])
        return [chosen] * len(examples)

    def write_predictions(
        self, handle: IO[str], examples: Sequence[LabelledText], predictions: Sequence
    ) -> None:
        """``index<TAB>gold<TAB>predicted`` after a header line, one row per example."""
        handle.write("index\tgold\tpredicted\n")
        for example, predicted in zip(examples, predictions):
            handle.write(f"{example.id}\t{example.label}\t{predicted}\n")

    def unit_statistic(self, metric: str, runs: ComparedRuns) -> UnitStatistic | None:
        """Class counts over every label of training, gold and predictions; micro-F1 counts
        the positive classes of the training labels."""
        seen = set(runs.labels)
        for folds in runs.folds:
            for fold in folds:
                seen |= set(fold.gold) | set(fold.predicted)
        positives = (
            positive_classes(runs.labels, runs.negative_label, runs.positive_labels)
            if metric == "micro_f1"
            else ()
        )
        return class_statistic(metric, sorted(seen), positives)
