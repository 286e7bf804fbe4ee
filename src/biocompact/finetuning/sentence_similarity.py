"""Sentence similarity as regression (BIOSSES): a sentence pair, a real-valued score from a
one-output head trained with mean squared error; scored by Pearson correlation (BLURB)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import IO, TYPE_CHECKING

import numpy as np

from biocompact.finetuning.family import Encoded, TaskFamily, dataset_of
from biocompact.finetuning.metrics import Metric, similarity_metrics
from biocompact.finetuning.predictions import score_rows
from biocompact.finetuning.unit_statistics import ComparedRuns, UnitStatistic, moment_statistic
from biocompact.taskfiles.similarity import ScoredPair

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

    from biocompact.taskfiles.settings import FinetuningTask


class SentenceSimilarity(TaskFamily):
    """Sentence pairs with a real-valued similarity, predicted by a one-output head."""

    name = "similarity"
    auto_model = "AutoModelForSequenceClassification"
    model_options = {"problem_type": "regression"}
    example = ScoredPair
    default_metric = "pearson"
    pipeline_tag = "text-classification"
    prediction_rows = staticmethod(score_rows)

    def build_model(self, model_path: str, labels: Sequence[str]) -> PreTrainedModel:
        """One regression output (there is no label set)."""
        return self.load_model(model_path, num_labels=1)

    def metrics(self, task: FinetuningTask, labels: Sequence[str]) -> dict[str, Metric]:
        return similarity_metrics()

    def gold(self, examples: Sequence[ScoredPair]) -> list[float]:
        return [example.score for example in examples]

    def encode(
        self,
        examples: Sequence[ScoredPair],
        tokenizer: PreTrainedTokenizerBase,
        labels: Sequence[str],
        task: FinetuningTask,
    ) -> Encoded:
        encoding = tokenizer(
            [example.text for example in examples],
            [example.text_pair for example in examples],
            truncation=True,
            max_length=task.training.max_seq_length,
        )
        truncated = sum(bool(item.overflowing) for item in encoding.encodings)
        columns = {**encoding, "labels": [example.score for example in examples]}
        return Encoded(dataset_of(columns), stats={"truncated_examples": truncated})

    def decode(self, logits: np.ndarray, encoded: Encoded, labels: Sequence[str]) -> list[float]:
        return [float(value) for value in np.asarray(logits).reshape(len(logits), -1)[:, 0]]

    def majority(self, train: Sequence[ScoredPair], examples: Sequence[ScoredPair]) -> list[float]:
        """The mean training score for every pair."""
        mean = float(np.mean(self.gold(train)))
        return [mean] * len(examples)

    def write_predictions(
        self, handle: IO[str], examples: Sequence[ScoredPair], predictions: Sequence[float]
    ) -> None:
        """``index<TAB>gold<TAB>predicted`` after a header line, one row per pair."""
        handle.write("index\tgold\tpredicted\n")
        for example, predicted in zip(examples, predictions):
            handle.write(f"{example.id}\t{example.score}\t{predicted:.6f}\n")

    def unit_statistic(self, metric: str, runs: ComparedRuns) -> UnitStatistic | None:
        return moment_statistic(metric)

    def item_metric(self, metric: str, labels: Sequence[str]) -> Callable[[list, list], float]:
        return similarity_metrics()[metric].compute
