"""Evaluation metrics, each paired with the definition written into metrics.json."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from seqeval.metrics import f1_score as entity_f1
from seqeval.metrics import precision_score as entity_precision
from seqeval.metrics import recall_score as entity_recall
from seqeval.scheme import IOB2
from sklearn.metrics import accuracy_score, f1_score

BINARY_LABELS = ("0", "1")
POSITIVE_BINARY_LABEL = "1"


@dataclass(frozen=True)
class Metric:
    """A named score: its human-readable definition and how to compute it from gold/predicted."""

    definition: str
    compute: Callable[[Sequence, Sequence], float]


def score(metrics: Mapping[str, Metric], gold: Sequence, predicted: Sequence) -> dict[str, float]:
    """Compute every metric of ``metrics`` on the gold and predicted labels."""
    if len(gold) != len(predicted):
        raise ValueError(f"{len(gold)} gold items but {len(predicted)} predictions")
    return {name: float(metric.compute(gold, predicted)) for name, metric in metrics.items()}


def definitions(metrics: Mapping[str, Metric]) -> dict[str, str]:
    """The definition string of every metric."""
    return {name: metric.definition for name, metric in metrics.items()}


def _entity(function: Callable, name: str) -> Metric:
    def compute(gold: Sequence, predicted: Sequence) -> float:
        return function(
            gold, predicted, mode="strict", scheme=IOB2, average="micro", zero_division=0
        )

    return Metric(
        f"entity-level micro {name}, seqeval strict IOB2 (an entity counts only when its type "
        "and both boundaries match exactly); words are scored by their first sub-token, words "
        "beyond max_seq_length are predicted O",
        compute,
    )


def ner_metrics() -> dict[str, Metric]:
    """Entity-level precision, recall and F1 over sentences of IOB2 tags."""
    return {
        "f1": _entity(entity_f1, "F1"),
        "precision": _entity(entity_precision, "precision"),
        "recall": _entity(entity_recall, "recall"),
    }


def classification_metrics(
    labels: Sequence[str],
    negative_label: str | None = None,
    positive_labels: Sequence[str] | None = None,
) -> dict[str, Metric]:
    """Single-label classification metrics for the training label set ``labels``.

    ``micro_f1`` is over the positive classes: ``positive_labels`` when given, else every
    label but ``negative_label`` (all labels when neither is set). ``binary_f1`` exists
    only for 0/1 label sets.
    """
    unknown = {negative_label, *(positive_labels or ())} - {None, *labels}
    if unknown:
        raise ValueError(f"labels {sorted(unknown)} are not training labels {list(labels)}")
    positives = list(positive_labels or [label for label in labels if label != negative_label])
    excluded = f", excluding the negative label {negative_label!r}" if negative_label else ""
    metrics = {
        "accuracy": Metric("share of examples whose label is predicted exactly", accuracy_score),
        "macro_f1": Metric(
            "unweighted mean of per-class F1 over the classes occurring in gold or predictions",
            lambda gold, pred: f1_score(gold, pred, average="macro", zero_division=0),
        ),
        "micro_f1": Metric(
            f"micro-averaged F1 over the classes {positives}{excluded}",
            lambda gold, pred: f1_score(
                gold, pred, labels=positives, average="micro", zero_division=0
            ),
        ),
    }
    if sorted(labels) == list(BINARY_LABELS):
        metrics["binary_f1"] = Metric(
            f"F1 of the positive class {POSITIVE_BINARY_LABEL!r}",
            lambda gold, pred: f1_score(
                gold, pred, labels=[POSITIVE_BINARY_LABEL], average="micro", zero_division=0
            ),
        )
    return metrics
