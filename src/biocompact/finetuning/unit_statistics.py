"""The fine-tuning metrics (``metrics.py``) as functions of sums over test units.

A paired bootstrap recomputes a metric on every resample of the test units. Each metric here
keeps per-unit sufficient statistics (entity counts per sentence for NER F1, correctness per
example, per-label counts, the moments of each similarity pair) and computes the metric from
their sums, with the same formula and zero rules as the library that defines it (seqeval for
entities, scikit-learn for classes, scipy for Pearson's r): a resample's score is then a
weighted sum (how often each unit was drawn x its statistics) instead of a fresh pass over
the predictions, and entity-level F1 comes from the resample's counts, never from an average
of per-sentence scores. A metric without such a form (ROC AUC, Spearman's rho) is computed
by its ``metrics.py`` function on each resample's items.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from seqeval.metrics.sequence_labeling import get_entities
from seqeval.scheme import IOB2, Entities

from biocompact.finetuning import bioasq
from biocompact.finetuning.metrics import (
    POSITIVE_BINARY_LABEL,
    ScoredLabel,
    by_document,
    entity_type,
    entity_types,
)
from biocompact.finetuning.predictions import FoldPredictions


@dataclass(frozen=True)
class UnitStatistic:
    """A metric over sums: ``items`` gives the statistics of each item (gold, predicted) as
    an (items, k) array, ``value`` the metric of summed statistics (..., k) -> (...);
    ``merged`` items are first OR-ed into their unit (an abstract's sentences)."""

    items: Callable[[Sequence, Sequence], np.ndarray]
    value: Callable[[np.ndarray], np.ndarray]
    merged: bool = False

    def unit_sums(
        self, units: Sequence[str], gold: Sequence, predicted: Sequence
    ) -> tuple[list[str], np.ndarray]:
        """The units in first-seen order and the (units, k) sums of their items' statistics."""
        order = list(dict.fromkeys(units))
        if self.merged:
            return order, self.items(*by_document(gold, predicted))
        index = {unit: i for i, unit in enumerate(order)}
        statistics = self.items(gold, predicted)
        sums = np.zeros((len(order), statistics.shape[1]))
        np.add.at(sums, [index[unit] for unit in units], statistics)
        return order, sums


@dataclass(frozen=True)
class ComparedRuns:
    """What the sum forms of a task's metrics are built from: its training ``labels``
    (sorted), the ``folds`` of every compared run read back, and its ``negative_label`` and
    ``positive_labels`` (the classes micro-F1 counts)."""

    labels: Sequence[str]
    folds: Sequence[Sequence[FoldPredictions]] = ()
    negative_label: str | None = None
    positive_labels: Sequence[str] | None = None


def _divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator, 0 where the denominator is 0 (``zero_division=0``)."""
    safe = np.where(denominator == 0, 1, denominator)
    return np.where(denominator == 0, 0.0, numerator / safe)


def _seqeval_scores(sums: np.ndarray) -> dict[str, np.ndarray]:
    """seqeval's micro precision, recall and F1 of summed (correct, predicted, gold) counts."""
    correct, predicted, gold = sums[..., 0], sums[..., 1], sums[..., 2]
    precision, recall = _divide(correct, predicted), _divide(correct, gold)
    denominator = precision + recall
    denominator = np.where(denominator == 0, 1, denominator)
    return {"precision": precision, "recall": recall, "f1": 2.0 * precision * recall / denominator}


def _entity_counts(strict: bool) -> Callable[[Sequence, Sequence], np.ndarray]:
    """(correct, predicted, gold) entities of each sentence, decoded as seqeval does: conlleval's
    chunk rules, or strict IOB2 (entities opened by an ill-formed I- tag dropped)."""

    def entities(tags: list[list[str]]) -> list[set]:
        if strict:
            return [{e.to_tuple() for e in found} for found in Entities(tags, IOB2).entities]
        return [set(get_entities(sentence)) for sentence in tags]

    def compute(gold: Sequence, predicted: Sequence) -> np.ndarray:
        pairs = zip(entities(list(gold)), entities(list(predicted)))
        return np.array([(len(g & p), len(p), len(g)) for g, p in pairs], dtype=float)

    return compute


def _f1_by_counts(true_positive: np.ndarray, gold: np.ndarray, predicted: np.ndarray):
    """scikit-learn's F1 = 2 tp / (gold + predicted), 0 when both are 0."""
    return _divide(2.0 * true_positive, gold + predicted)


def _class_counts(classes: Sequence[str]) -> Callable[[Sequence, Sequence], np.ndarray]:
    """Per item and class: (true positive, gold, predicted) indicators, class after class."""
    position = {label: i for i, label in enumerate(classes)}

    def compute(gold: Sequence, predicted: Sequence) -> np.ndarray:
        rows = np.zeros((len(gold), 3 * len(classes)))
        for row, (g, p) in enumerate(zip(gold, predicted)):
            for label, column in ((g, 1), (p, 2)):
                if label in position:
                    rows[row, 3 * position[label] + column] = 1
            if g == p and g in position:
                rows[row, 3 * position[g]] = 1
        return rows

    return compute


def _by_class(sums: np.ndarray) -> np.ndarray:
    """Per-class F1 of summed (tp, gold, predicted) triples, shape (..., classes)."""
    triples = sums.reshape(*sums.shape[:-1], -1, 3)
    return _f1_by_counts(triples[..., 0], triples[..., 1], triples[..., 2])


def _micro(sums: np.ndarray) -> np.ndarray:
    """Micro F1 of summed per-class (tp, gold, predicted) triples."""
    totals = sums.reshape(*sums.shape[:-1], -1, 3).sum(axis=-2)
    return _f1_by_counts(totals[..., 0], totals[..., 1], totals[..., 2])


def _macro_all(sums: np.ndarray) -> np.ndarray:
    """Mean of the per-class F1 over every class (a class never seen scores 0)."""
    return _by_class(sums).mean(axis=-1)


def _macro_present(sums: np.ndarray) -> np.ndarray:
    """Mean of the per-class F1 over the classes in gold or predictions."""
    triples = sums.reshape(*sums.shape[:-1], -1, 3)
    present = (triples[..., 1] + triples[..., 2]) > 0
    return np.where(present, _by_class(sums), 0).sum(axis=-1) / np.maximum(present.sum(-1), 1)


def _share(sums: np.ndarray) -> np.ndarray:
    """Sum of a per-item value over the number of items: (value, 1) sums."""
    return _divide(sums[..., 0], sums[..., 1])


def _per_item(function: Callable[[object, object], float]) -> Callable:
    """(value, 1) rows of a per-item value."""

    def compute(gold: Sequence, predicted: Sequence) -> np.ndarray:
        return np.array([(function(g, p), 1.0) for g, p in zip(gold, predicted)], dtype=float)

    return compute


def _word_type_counts(types: Sequence[str]) -> Callable[[Sequence, Sequence], np.ndarray]:
    """Per sentence and entity type: (words of the type in both, words in gold + predicted)."""
    position = {kind: i for i, kind in enumerate(types)}

    def compute(gold: Sequence, predicted: Sequence) -> np.ndarray:
        rows = np.zeros((len(gold), 2 * len(position)))
        for row, (gold_tags, predicted_tags) in enumerate(zip(gold, predicted)):
            for g, p in zip(gold_tags, predicted_tags, strict=True):
                g_type, p_type = entity_type(g), entity_type(p)
                if g_type == p_type and g_type in position:
                    rows[row, 2 * position[g_type]] += 1
                for kind in (g_type, p_type):
                    if kind in position:
                        rows[row, 2 * position[kind] + 1] += 1
        return rows

    return compute


def _word_macro(sums: np.ndarray) -> np.ndarray:
    pairs = sums.reshape(*sums.shape[:-1], -1, 2)
    return _divide(2 * pairs[..., 0], pairs[..., 1]).mean(axis=-1)


def _moments(gold: Sequence[float], predicted: Sequence[float]) -> np.ndarray:
    """Per pair: 1, x, y, x², y², xy of the scores centred on their means (no cancellation in
    a resample's variance), and the squared error."""
    x, y = np.asarray(gold, dtype=float), np.asarray(predicted, dtype=float)
    error = (x - y) ** 2
    x, y = x - x.mean(), y - y.mean()
    return np.stack([np.ones_like(x), x, y, x * x, y * y, x * y, error], axis=1)


def _pearson(sums: np.ndarray) -> np.ndarray:
    """Pearson's r of summed moments; 0 when either series is constant (as ``metrics.py``)."""
    n, x, y, xx, yy, xy = (sums[..., i] for i in range(6))
    var_x, var_y = xx - x * x / n, yy - y * y / n
    # A constant resample leaves only rounding of its centred second moment in its variance.
    constant = (var_x <= 1e-9 * xx) | (var_y <= 1e-9 * yy)
    covariance = xy - x * y / n
    safe = np.where(constant, 1, var_x * var_y)
    return np.where(constant, 0.0, np.clip(covariance / np.sqrt(safe), -1, 1))


def _set_counts(classes: Sequence[str]) -> Callable[[Sequence, Sequence], np.ndarray]:
    """Per item of label sets and class: (true positive, gold, predicted) indicators; a gold
    item is a (document, label set) pair or, merged into its document, a label set."""

    def compute(gold: Sequence, predicted: Sequence) -> np.ndarray:
        rows = np.zeros((len(gold), 3 * len(classes)))
        for row, (g, p) in enumerate(zip(gold, predicted)):
            g = g[1] if isinstance(g, tuple) else g
            for i, label in enumerate(classes):
                rows[row, 3 * i : 3 * i + 3] = (label in g and label in p, label in g, label in p)
        return rows

    return compute


def entity_statistic(metric: str, labels: Sequence[str]) -> UnitStatistic:
    """The sum form of an NER metric (``labels``: the task's tags): entity counts per
    sentence, or the words of each entity type for ``word_macro_f1``."""
    if metric == "word_macro_f1":
        return UnitStatistic(_word_type_counts(entity_types(labels)), _word_macro)
    strict = metric.startswith("strict_")
    name = metric.removeprefix("strict_")
    return UnitStatistic(_entity_counts(strict), lambda s: _seqeval_scores(s)[name])


def label_set_statistic(metric: str, labels: Sequence[str]) -> UnitStatistic:
    """The sum form of a multi-label metric: per-label counts of each sentence, OR-ed into
    its abstract for ``abstract_micro_f1``."""
    counts = _set_counts(labels)
    if metric == "macro_f1":
        return UnitStatistic(counts, _macro_all)
    return UnitStatistic(counts, _micro, merged=metric == "abstract_micro_f1")


def rank_statistic(metric: str) -> UnitStatistic:
    """The sum form of a factoid metric: each question's answer rank as a per-item value."""
    rank = {
        "strict_accuracy": lambda g, p: bioasq.answer_rank(g, p) == 1,
        "lenient_accuracy": lambda g, p: bioasq.answer_rank(g, p) is not None,
        "mrr": lambda g, p: 1.0 / (bioasq.answer_rank(g, p) or np.inf),
    }[metric]
    return UnitStatistic(_per_item(rank), _share)


def moment_statistic(metric: str) -> UnitStatistic | None:
    """The sum form of a similarity metric from each pair's moments; None for Spearman's
    rho, which has none."""
    if metric == "pearson":
        return UnitStatistic(_moments, _pearson)
    if metric == "mse":
        return UnitStatistic(_moments, lambda s: _divide(s[..., 6], s[..., 0]))
    return None


def class_statistic(
    metric: str, labels: Sequence[str], positives: Sequence[str] = (), scored: bool = False
) -> UnitStatistic | None:
    """The sum form of a single-label classification metric (``labels``: every label seen;
    ``positives``: the classes micro-F1 counts); ``scored``: predictions are
    ``ScoredLabel``s whose macro-F1 averages every label (yes/no questions), else plain
    labels whose macro-F1 averages the labels present. None for ROC AUC, which has none."""
    label_of: Callable[[Any], str] = _label if scored else _same
    if metric == "accuracy":
        return UnitStatistic(_per_item(lambda g, p: g == label_of(p)), _share)
    if metric == "roc_auc":
        return None
    classes = {"micro_f1": positives, "binary_f1": [POSITIVE_BINARY_LABEL]}.get(metric, labels)
    counts = _class_counts(classes)
    statistic = counts if not scored else lambda g, p: counts(g, [_label(x) for x in p])
    if metric in ("micro_f1", "binary_f1"):
        return UnitStatistic(statistic, _micro)
    return UnitStatistic(statistic, _macro_all if scored else _macro_present)


def _label(predicted: ScoredLabel) -> str:
    return predicted.label


def _same(predicted: str) -> str:
    return predicted
