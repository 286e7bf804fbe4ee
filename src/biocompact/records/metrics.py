"""``metrics.json``: the record of a fine-tuning run, a majority-class baseline, a task
distillation's teacher or a published seed, written by fine-tuning (``finetuning.record``)
and read by the model cards and the report (docs/outputs.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from biocompact.entries import rest
from biocompact.records.base import RecordFile, when_set, written_when

# The constant floors: predictions that ignore the input, each written by the baseline rule
# as a model of its own (``results/baselines/{task}/...``) and read by the cards and the
# report under these names.
MAJORITY_CLASS = "majority-class"
ALL_POSITIVE = "all-positive"
FLOOR_MODELS = (MAJORITY_CLASS, ALL_POSITIVE)
FLOOR_DESCRIPTIONS = {
    MAJORITY_CLASS: "the most frequent training label for every example (NER: all O; "
    "multi-label: each label positive in more than half of the training sentences; QA: the "
    "most frequent training answers; similarity: the mean training score)",
    ALL_POSITIVE: "the positive class for every example (an F1 over positive classes: the "
    "most frequent positive training class) or, multi-label, every label for every sentence",
}
# Why a family has no floor beyond the majority class, as the report and docs say it.
NO_FURTHER_FLOOR = {
    "ner": "a constant tagger scores 0 entity F1 or near it: all O finds no entity; one B- tag "
    "on every word finds only the one-word gold entities of its type, among as many predicted "
    "entities as there are words (F1 below twice their share of the words), so all O is the "
    "only floor run",
    "similarity": "a constant prediction has no correlation (undefined; the metric scores it "
    "0), so the mean training score is the floor",
    "accuracy": "the majority class (factoid QA: the most frequent training answers) is "
    "already the strongest constant prediction of accuracy and macro-F1",
}


@dataclass(frozen=True, kw_only=True)
class FoldScores:
    """One fold of a cross-validated run: its test and dev scores, its best epoch, its
    examples per split and where its dev split came from (an older record lacking one of
    these: its default)."""

    RECORD = "fold {key}"

    metrics: dict[str, float]
    dev_metrics: dict[str, float] = field(default_factory=dict)
    best_epoch: float | None = None
    train_examples: int | None = None
    dev_examples: int | None = None
    test_examples: int | None = None
    dev_source: str | None = None


@dataclass(frozen=True, kw_only=True)
class MetricsRecord(RecordFile):
    """One run's test scores (``metrics``; over folds, the median) with its dev scores,
    each metric's definition, what it trained on and how, and the family's statistics
    (``stats``: truncated examples...; each a key of its own in the file). A record lacking
    a field (an older one, or one written by hand) reads with its default; the keys
    ``when_set`` are written only when set, and ``best_step`` only without folds."""

    FILE = "metrics record (metrics.json)"

    model: str
    task: str
    seed: int | None  # None: a baseline
    family: str
    primary_metric: str
    metrics: dict[str, float]
    dev_metrics: dict[str, float] = field(default_factory=dict)
    definitions: dict[str, str] = field(default_factory=dict)
    best_epoch: float | None = None  # None with folds
    train_examples: int | None = None
    dev_examples: int | None = None
    test_examples: int | None = None
    train_seconds: float = 0.0  # a baseline trains for none
    hyperparameters: dict[str, Any] | None = None  # None: a baseline
    model_path: str | None = None  # the base model's portable location; None: a baseline
    dev_source: str | None = None
    labels: list[str] = field(default_factory=list)
    subsampled: dict[str, dict[str, int]] = field(default_factory=dict)  # split: used, of
    majority_baseline: dict[str, float] | None = when_set()  # on the same test examples
    # the other constant floors that apply (FLOOR_MODELS: all-positive), on the same examples
    constant_floors: dict[str, dict[str, float]] | None = when_set()
    fold_aggregate: str | None = when_set()  # with folds: how their scores are combined
    folds: dict[str, FoldScores] | None = when_set()
    best_step: int | None = field(
        default=None, metadata=written_when(lambda record, value: record.folds is None)
    )
    stats: dict[str, int] = field(default_factory=dict, metadata=rest("counts"))
    grid_search: list[dict[str, Any]] | dict[str, list[dict[str, Any]] | None] | None = when_set()
    pooling: str | None = when_set()  # sequence-level families: the pooling, and why
    hardware: str | None = when_set()
    selection: str | None = when_set()  # a published seed: why it was chosen

    def subsample_text(self) -> str:
        """The splits the run used only part of, e.g. ``test: 1,000 of 4,797``; empty when
        every split was whole."""
        return "; ".join(
            f"{split}: {counts['used']:,} of {counts['of']:,}"
            for split, counts in self.subsampled.items()
        )
