"""Multi-label classification (HoC): one sigmoid per label on the sequence head, trained on
whole abstracts (BLURB, the task's ``unit: abstract``) or on BLUE's sentences (``unit:
sentence``), scored per example and per abstract."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING

import numpy as np

from biocompact.finetuning.family import Encoded, TaskFamily, dataset_of
from biocompact.finetuning.metrics import Metric, multilabel_metrics
from biocompact.finetuning.predictions import label_set_rows
from biocompact.finetuning.unit_statistics import (
    ComparedRuns,
    UnitStatistic,
    label_set_statistic,
)
from biocompact.taskfiles.readers import MultiLabelText, hoc_abstracts

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

    from biocompact.taskfiles.settings import FinetuningTask


class MultiLabelClassification(TaskFamily):
    """Abstracts (or sentences) with label sets; abstract-level micro F1 (BLURB) by default.

    With ``unit: abstract`` (the default) every example is an abstract: ``hoc_abstracts``
    joins a sentence-level file's sentences before anything else reads them, so that
    ``max_*_examples``, the dev carving, the predictions file (one row per abstract, its
    index the document) and the paired bootstrap all count abstracts."""

    name = "dc"
    auto_model = "AutoModelForSequenceClassification"
    model_options = {"problem_type": "multi_label_classification"}
    example = MultiLabelText
    default_metric = "abstract_micro_f1"
    pipeline_tag = "text-classification"
    prediction_rows = staticmethod(label_set_rows)

    def read_task_file(self, task: FinetuningTask, path: str | Path) -> list[MultiLabelText]:
        """The file's sentences, or its abstracts (``hoc_abstracts``) with ``unit: abstract``."""
        examples = self.read(path, task.format)
        return hoc_abstracts(examples) if task.unit == "abstract" else examples

    def group(self, example: MultiLabelText) -> str:
        return example.document

    def metrics(self, task: FinetuningTask, labels: Sequence[str]) -> dict[str, Metric]:
        return multilabel_metrics(labels, task.unit)

    def gold(self, examples: Sequence[MultiLabelText]) -> list[tuple[str, frozenset]]:
        return [(example.document, example.labels) for example in examples]

    def encode(
        self,
        examples: Sequence[MultiLabelText],
        tokenizer: PreTrainedTokenizerBase,
        labels: Sequence[str],
        task: FinetuningTask,
    ) -> Encoded:
        """Tokenise each example (truncated to max_seq_length) with a 0/1 vector of labels;
        count the examples truncated, the abstracts and the abstracts with a truncated
        example (at the abstract level the same count)."""
        encoding = tokenizer(
            [example.text for example in examples],
            truncation=True,
            max_length=task.training.max_seq_length,
        )
        targets = [[float(label in example.labels) for label in labels] for example in examples]
        cut = [bool(item.overflowing) for item in encoding.encodings]
        abstracts = {example.document for example in examples}
        truncated_abstracts = {example.document for example, c in zip(examples, cut) if c}
        stats = {
            "truncated_examples": sum(cut),
            "abstracts": len(abstracts),
            "truncated_abstracts": len(truncated_abstracts),
        }
        dataset = dataset_of({**encoding, "labels": targets})
        threshold = task.training.threshold
        return Encoded(dataset, stats=stats, settings={"threshold": threshold})

    def decode(self, logits: np.ndarray, encoded: Encoded, labels: Sequence[str]) -> list:
        """Every label whose sigmoid probability exceeds the task's ``threshold``."""
        threshold = encoded.settings["threshold"]
        chosen = logits > np.log(threshold / (1 - threshold))  # sigmoid(x) > t
        return [frozenset(np.asarray(labels)[row].tolist()) for row in chosen]

    def majority(
        self, train: Sequence[MultiLabelText], examples: Sequence[MultiLabelText]
    ) -> list[frozenset]:
        """Each label that is positive in more than half of the training sentences."""
        counts = Counter(label for example in train for label in example.labels)
        frequent = frozenset(label for label, n in counts.items() if n > len(train) / 2)
        return [frequent] * len(examples)

    def all_positive(
        self,
        train: Sequence[MultiLabelText],
        examples: Sequence[MultiLabelText],
        task: FinetuningTask,
        labels: Sequence[str],
    ) -> list[frozenset]:
        """Every training label for every sentence (so for every abstract): the floor of
        each F1 over the labels."""
        return [frozenset(labels)] * len(examples)

    def write_predictions(
        self, handle: IO[str], examples: Sequence[MultiLabelText], predictions: Sequence
    ) -> None:
        """``index<TAB>gold<TAB>predicted<TAB>document`` (comma-separated sorted labels; the
        example's abstract: at the abstract level the index itself) after a header."""
        handle.write("index\tgold\tpredicted\tdocument\n")
        for example, predicted in zip(examples, predictions):
            gold, guess = ",".join(sorted(example.labels)), ",".join(sorted(predicted))
            handle.write(f"{example.id}\t{gold}\t{guess}\t{example.document}\n")

    def unit_statistic(self, metric: str, runs: ComparedRuns) -> UnitStatistic:
        return label_set_statistic(metric, runs.labels)

    def resampled_unit(self, metric: str) -> str:
        """Abstracts for the abstract-level metric (a sentence's rows merged into their
        abstract; at the abstract level each row is one)."""
        return "abstracts" if metric == "abstract_micro_f1" else "examples"
