"""Score a classification model on its task's test set with the harness's metrics, ROC AUC
(from the predicted probabilities, for families whose metrics lack it) and, for students,
the share of test units (examples; questions for yes/no) predicted as the teacher does.

Written into ``evaluation.json`` (``records.classifier_evaluation``) and ``evaluation.tsv``
(the harness's predictions file of the task family)."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from scipy.special import softmax
from transformers import PreTrainedModel, PreTrainedTokenizerBase

from biocompact.files.atomic import atomic_open
from biocompact.finetuning.family import TaskFamily
from biocompact.finetuning.metrics import ScoredLabel, roc_auc_metric
from biocompact.finetuning.splits import check_known_labels
from biocompact.finetuning.trainer import predict_logits
from biocompact.records.classifier_evaluation import ClassifierScores
from biocompact.task_distillation.summary import AGREEMENT
from biocompact.taskfiles.settings import FinetuningTask
from biocompact.training import distributed

PRIMARY_METRIC = "roc_auc"
AGREEMENT_DEFINITION = "share of test units whose predicted label is the teacher's"


def _label(prediction: Any) -> str:
    return prediction.label if isinstance(prediction, ScoredLabel) else prediction


def read_predicted_labels(path: str | Path) -> list[str]:
    """The ``predicted`` column of an ``evaluation.tsv``."""
    with open(path, encoding="utf-8", newline="") as handle:
        return [
            row["predicted"]
            for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        ]


def evaluate(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    family: TaskFamily,
    task: FinetuningTask,
    labels: Sequence[str],
    *,
    seed: int,
    out_predictions: str | Path,
    teacher_predictions: Sequence[str] | None = None,
) -> ClassifierScores:
    """Test metrics (plus ``teacher_agreement`` when the teacher's predicted labels are
    given), their definitions and the number of test units; writes the predictions (rank 0
    alone under torchrun, every process predicting its share)."""
    test = family.read_split(task, "test")
    check_known_labels(test, labels)
    encoded = family.encode(test, tokenizer, labels, task)
    logits = predict_logits(model, family, tokenizer, encoded.dataset, task.training, seed)
    predictions = family.decode(logits, encoded, labels)
    metrics = family.score(test, predictions, task, labels)
    definitions = {name: metric.definition for name, metric in family.metrics(task, labels).items()}
    if PRIMARY_METRIC not in metrics:
        auc = roc_auc_metric(labels, "example")
        scored = [
            ScoredLabel(p, tuple(map(float, row)))
            for p, row in zip(predictions, softmax(logits, axis=-1))
        ]
        metrics[PRIMARY_METRIC] = float(auc.compute(family.gold(test), scored))
        definitions[PRIMARY_METRIC] = auc.definition
    if teacher_predictions is not None:
        if len(teacher_predictions) != len(predictions):
            raise ValueError(
                f"{len(teacher_predictions)} teacher predictions for {len(predictions)} test units"
            )
        agreed = sum(_label(p) == t for p, t in zip(predictions, teacher_predictions))
        metrics[AGREEMENT] = agreed / len(predictions)
        definitions[AGREEMENT] = AGREEMENT_DEFINITION
    if distributed.is_main():
        with atomic_open(out_predictions) as handle:
            family.write_predictions(handle, test, predictions)
    return ClassifierScores(
        primary_metric=PRIMARY_METRIC,
        metrics=metrics,
        definitions=definitions,
        test_units=len(predictions),
    )
