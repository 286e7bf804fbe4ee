"""Evaluation metrics, each paired with the definition written into metrics.json."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import pearsonr, spearmanr
from seqeval.metrics.sequence_labeling import precision_recall_fscore_support as conlleval_scores
from seqeval.metrics.v1 import precision_recall_fscore_support as strict_scores
from seqeval.scheme import IOB2
from sklearn.metrics import accuracy_score, f1_score, roc_auc_score
from sklearn.preprocessing import MultiLabelBinarizer

from biocompact.finetuning import bioasq

BINARY_LABELS = ("0", "1")
POSITIVE_BINARY_LABEL = "1"


@dataclass(frozen=True)
class ScoredLabel:
    """A predicted label with the probability of every training label (in their order)."""

    label: str
    probabilities: tuple[float, ...]


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


# seqeval's default mode decodes entities with conlleval's chunk rules (an ``I-X`` after ``O``
# or after another type opens an entity, as conlleval.pl does): the definition BioBERT's
# evaluation and Hugging Face's run_ner report. Its strict IOB2 mode drops such ill-formed
# entities; it is kept as a second, labelled metric.
_CONLLEVAL = (
    "conlleval (CoNLL-2000 conlleval.pl rules, seqeval's default mode: an I- tag after O or "
    "after another type starts an entity); an entity counts when its type and both "
    "boundaries match"
)
_STRICT = (
    "seqeval strict IOB2 (entities opened by an ill-formed I- tag are dropped); an entity "
    "counts when its type and both boundaries match"
)


def _entity_scores(strict: bool) -> Callable[[Sequence, Sequence], dict[str, float]]:
    """seqeval's entity-level micro precision, recall and F1, the three from one pass over the
    entities: the result for the last (gold, predicted) pair is kept, so the three metrics of
    one evaluation decode the entities once (seqeval's ``f1_score`` and friends each decode
    them again)."""
    compute = functools.partial(strict_scores, scheme=IOB2) if strict else conlleval_scores
    last: list = []  # [gold, predicted, scores] of the last call

    def scores(gold: Sequence, predicted: Sequence) -> dict[str, float]:
        if not (last and last[0] is gold and last[1] is predicted):
            precision, recall, f1, _ = compute(gold, predicted, average="micro", zero_division=0)
            last[:] = [gold, predicted, {"precision": precision, "recall": recall, "f1": f1}]
        return last[2]

    return scores


def _entity(
    scores: Callable[[Sequence, Sequence], dict[str, float]], name: str, training: str, strict: bool
) -> Metric:
    return Metric(
        f"entity-level micro {name if name != 'f1' else 'F1'}, "
        f"{_STRICT if strict else _CONLLEVAL}; trained with "
        f"{training} labelled, words are scored by their first sub-token, words beyond "
        "max_seq_length are predicted O",
        lambda gold, predicted: scores(gold, predicted)[name],
    )


def entity_type(tag: str) -> str | None:
    """The entity type of an IOB2 tag (``B-Disease`` -> ``Disease``), None for O."""
    return None if tag == "O" else tag.split("-", 1)[-1]


def entity_types(labels: Sequence[str]) -> list[str]:
    """The entity types of a set of IOB2 labels, sorted."""
    return sorted({kind for label in labels if (kind := entity_type(label))})


def word_macro_f1(types: Sequence[str]) -> Callable[[Sequence, Sequence], float]:
    """Unweighted mean over entity ``types`` of the word-level F1 of each type (a word
    belongs to a type when its tag, B- or I-, carries it): BLURB's PICO metric."""

    def compute(gold: Sequence[Sequence[str]], predicted: Sequence[Sequence[str]]) -> float:
        pairs = [
            (entity_type(g), entity_type(p))
            for gold_tags, predicted_tags in zip(gold, predicted)
            for g, p in zip(gold_tags, predicted_tags, strict=True)
        ]
        scores = []
        for kind in types:
            both = sum(g == kind and p == kind for g, p in pairs)
            total = sum(g == kind for g, _ in pairs) + sum(p == kind for _, p in pairs)
            scores.append(2 * both / total if total else 0.0)
        return sum(scores) / len(scores) if scores else 0.0

    return compute


def ner_metrics(label_all_subtokens: bool = False, labels: Sequence[str] = ()) -> dict[str, Metric]:
    """Entity-level micro precision, recall and F1 over sentences of IOB2 tags: conlleval's
    definition (``f1``, ...), and seqeval's strict IOB2 mode (``strict_f1``, ...); with the
    training ``labels``, also the word-level macro F1 over their entity types."""
    training = "every sub-token" if label_all_subtokens else "the first sub-token of each word"
    metrics = {}
    for prefix in ("", "strict_"):
        scores = _entity_scores(strict=bool(prefix))
        for name in ("f1", "precision", "recall"):
            metrics[f"{prefix}{name}"] = _entity(scores, name, training, strict=bool(prefix))
    types = entity_types(labels)
    if types:
        metrics["word_macro_f1"] = Metric(
            f"word-level F1 of each entity type {types} (a word counts for the type of its B- "
            "or I- tag), unweighted mean over the types (BLURB's PICO metric, after Nye et al. "
            "2018)",
            word_macro_f1(types),
        )
    return metrics


def positive_classes(
    labels: Sequence[str],
    negative_label: str | None = None,
    positive_labels: Sequence[str] | None = None,
) -> list[str]:
    """The classes micro-F1 counts: ``positive_labels`` when given, else every label but
    ``negative_label`` (all labels when neither is set); both must be training ``labels``."""
    named = [label for label in (negative_label, *(positive_labels or ())) if label is not None]
    unknown = set(named) - set(labels)
    if unknown:
        raise ValueError(f"labels {sorted(unknown)} are not training labels {list(labels)}")
    return list(positive_labels or [label for label in labels if label != negative_label])


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
    positives = positive_classes(labels, negative_label, positive_labels)
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


def factoid_metrics() -> dict[str, Metric]:
    """BioASQ factoid strict/lenient accuracy and MRR over questions (gold: synonyms,
    predicted: up to 5 ranked answers), as the official BioASQ evaluation computes them."""
    scope = (
        "per question, its snippets' candidate answers merged (case-insensitive, scores "
        "summed) into the 5 best; answers and golden synonyms lower-cased and compared for "
        "equality, as in the official BioASQ evaluation (EvaluatorTask1b -phaseB -e 5)"
    )
    return {
        "strict_accuracy": Metric(
            f"share of questions whose first answer is a golden synonym; {scope}",
            bioasq.strict_accuracy,
        ),
        "lenient_accuracy": Metric(
            f"share of questions with a golden synonym among the 5 answers; {scope}",
            bioasq.lenient_accuracy,
        ),
        "mrr": Metric(
            f"mean reciprocal rank of the first golden synonym among the 5 answers (0 when "
            f"none); {scope}",
            bioasq.mean_reciprocal_rank,
        ),
    }


def _roc_auc(labels: Sequence[str], positive: str) -> Callable[[Sequence, Sequence], float]:
    def compute(gold: Sequence[str], predicted: Sequence[ScoredLabel]) -> float:
        if len(set(gold)) < 2:
            return 0.5
        if len(labels) == 2:
            column = list(labels).index(positive)
            scores = [p.probabilities[column] for p in predicted]
            return roc_auc_score([label == positive for label in gold], scores)
        matrix = [p.probabilities for p in predicted]
        return roc_auc_score(gold, matrix, labels=list(labels), multi_class="ovr", average="macro")

    return compute


def positive_label(labels: Sequence[str]) -> str:
    """The label whose probability a binary ROC AUC ranks by: yes, else 1, else the last."""
    for positive in ("yes", POSITIVE_BINARY_LABEL):
        if positive in labels:
            return positive
    return labels[-1]


def roc_auc_metric(labels: Sequence[str], unit: str) -> Metric:
    """ROC AUC of predicted probabilities (``ScoredLabel``) per ``unit``: of the positive
    label for two labels, else macro one-vs-rest."""
    positive = positive_label(labels)
    return Metric(
        (
            f"ROC AUC of the predicted probability of {positive!r} per {unit}"
            if len(labels) == 2
            else f"macro one-vs-rest ROC AUC over {list(labels)} per {unit}"
        )
        + "; 0.5 when gold holds a single class",
        _roc_auc(labels, positive),
    )


def yesno_metrics(labels: Sequence[str], unit: str) -> dict[str, Metric]:
    """Accuracy, macro-F1 over the training labels and ROC AUC of yes/no(/maybe) answers,
    one per ``unit`` (e.g. question)."""
    return {
        "accuracy": Metric(
            f"share of {unit}s answered correctly",
            lambda gold, pred: accuracy_score(gold, [p.label for p in pred]),
        ),
        "macro_f1": Metric(
            f"unweighted mean of the F1 of each class {list(labels)} over {unit}s (BioASQ's "
            "macro F1 = (F1 yes + F1 no) / 2; a class never predicted nor gold scores 0)",
            lambda gold, pred: f1_score(
                gold, [p.label for p in pred], labels=list(labels), average="macro", zero_division=0
            ),
        ),
        "roc_auc": roc_auc_metric(labels, unit),
    }


def _indicators(labels: Sequence[str], label_sets: Sequence[frozenset]) -> object:
    return MultiLabelBinarizer(classes=list(labels)).fit_transform(label_sets)


def by_document(gold: Sequence[tuple[str, frozenset]], predicted: Sequence[frozenset]) -> tuple:
    """Gold and predicted label sets per document (first-seen order): the sets of its
    sentences OR-ed."""
    documents: dict[str, list[set]] = {}
    for (document, labels), guess in zip(gold, predicted):
        merged = documents.setdefault(document, [set(), set()])
        merged[0] |= labels
        merged[1] |= guess
    return [g for g, _ in documents.values()], [p for _, p in documents.values()]


def multilabel_metrics(labels: Sequence[str], unit: str = "sentence") -> dict[str, Metric]:
    """Micro/macro F1 over the label set per example (a ``unit``: a sentence, or an abstract)
    and micro F1 at document level (gold: (document, label set) per example; predicted:
    label set per example). At the abstract level the two micro F1 are the same."""

    def f1(average: str, documents: bool) -> Callable[[Sequence, Sequence], float]:
        def compute(gold: Sequence, predicted: Sequence) -> float:
            if documents:
                gold_sets, predicted_sets = by_document(gold, predicted)
            else:
                gold_sets, predicted_sets = [labels for _, labels in gold], predicted
            return f1_score(
                _indicators(labels, gold_sets),
                _indicators(labels, predicted_sets),
                average=average,
                zero_division=0,
            )

        return compute

    return {
        "micro_f1": Metric(
            f"{unit}-level micro F1 over the labels {list(labels)}"
            + (" (BLUE)" if unit == "sentence" else ""),
            f1("micro", False),
        ),
        "macro_f1": Metric(
            f"{unit}-level unweighted mean of per-label F1 over {list(labels)}",
            f1("macro", False),
        ),
        "abstract_micro_f1": Metric(
            f"abstract-level micro F1 over {list(labels)}: the labels of an abstract's sentences "
            "OR-ed into the abstract, gold and predicted alike (BLURB)"
            + (", trained on whole abstracts" if unit == "abstract" else ""),
            f1("micro", True),
        ),
    }


def _correlation(function: Callable) -> Callable[[Sequence[float], Sequence[float]], float]:
    def compute(gold: Sequence[float], predicted: Sequence[float]) -> float:
        if len(set(gold)) < 2 or len(set(predicted)) < 2:
            return 0.0  # undefined for a constant series
        return float(function(gold, predicted)[0])

    return compute


def similarity_metrics() -> dict[str, Metric]:
    """Pearson (BLURB's BIOSSES metric) and Spearman correlation, and mean squared error."""
    return {
        "pearson": Metric(
            "Pearson correlation of predicted and gold scores (BLURB); 0 when either is constant",
            _correlation(pearsonr),
        ),
        "spearman": Metric(
            "Spearman rank correlation of predicted and gold scores; 0 when either is constant",
            _correlation(spearmanr),
        ),
        "mse": Metric(
            "mean squared error of the predicted scores (lower is better)",
            lambda gold, predicted: float(np.mean((np.asarray(gold) - predicted) ** 2)),
        ),
    }
