"""The metrics.json record of fine-tuning runs and baselines, assembled from their folds'
results (``records.metrics.MetricsRecord``, docs/outputs.md), and the predictions file of one
or more cross-validation folds."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO

from biocompact.files.atomic import atomic_open, write_json
from biocompact.finetuning.family import TaskFamily
from biocompact.finetuning.metrics import definitions
from biocompact.finetuning.splits import Splits
from biocompact.locations import portable_location
from biocompact.records.base import record_data
from biocompact.records.metrics import FoldScores, MetricsRecord
from biocompact.taskfiles.settings import FinetuningTask, Hyperparameters

FOLD_AGGREGATE = "median over folds"


@dataclass
class FoldResult:
    """What one fold (the only one for a task without folds) produced."""

    fold: str | None
    splits: Splits
    test_metrics: dict[str, float]
    dev_metrics: dict[str, float]
    predictions: list
    best_epoch: float | None = None
    best_step: int | None = None
    train_seconds: float = 0.0
    hyperparameters: Hyperparameters | None = None
    grid_search: list[dict] | None = None
    stats: dict[str, int] = field(default_factory=dict)
    # the majority-class baseline's test scores on the same examples (fine-tuning runs)
    baseline_metrics: dict[str, float] | None = None
    # the other constant floors' test scores on the same examples (fine-tuning runs)
    floor_metrics: dict[str, dict[str, float]] | None = None


def _median(values: Sequence[Mapping[str, float]]) -> dict[str, float]:
    return {name: statistics.median(v[name] for v in values) for name in values[0]}


def _subsampled(results: Sequence[FoldResult]) -> dict[str, dict[str, int]]:
    """Each split that ``max_*_examples`` cut: examples kept ``used`` ``of`` the examples
    there were, totals over folds."""
    counts = {
        split: [
            r.splits.subsampled.get(split, (len(getattr(r.splits, split)),) * 2) for r in results
        ]
        for split in dict.fromkeys(s for r in results for s in r.splits.subsampled)
    }
    return {
        split: {"used": sum(used for used, _ in pairs), "of": sum(of for _, of in pairs)}
        for split, pairs in counts.items()
    }


def _fold_scores(result: FoldResult) -> FoldScores:
    return FoldScores(
        metrics=result.test_metrics,
        dev_metrics=result.dev_metrics,
        best_epoch=result.best_epoch,
        train_examples=len(result.splits.train),
        dev_examples=len(result.splits.dev),
        test_examples=len(result.splits.test),
        dev_source=result.splits.dev_source,
    )


def metrics_record(
    *,
    model: str,
    seed: int | None,
    task: FinetuningTask,
    family: TaskFamily,
    results: Sequence[FoldResult],
    model_path: str | None,
) -> MetricsRecord:
    """Assemble one metrics.json record of ``model`` on ``task``.

    One fold: its scores. Cross-validation: every metric is the median over folds, each
    fold's scores are under ``folds``, example counts are totals over folds and
    ``best_epoch`` is null. Family statistics (truncation...) and the grid search, when
    there is one, come last."""
    first = results[0]
    labels = first.splits.labels
    cross_validated = first.fold is not None
    return MetricsRecord(
        model=model,
        task=task.name,
        seed=seed,
        family=family.name,
        primary_metric=family.primary_metric(task, labels),
        metrics=_median([r.test_metrics for r in results]),
        dev_metrics=_median([r.dev_metrics for r in results]),
        definitions=definitions(family.metrics(task, labels)),
        best_epoch=None if cross_validated else first.best_epoch,
        train_examples=sum(len(r.splits.train) for r in results),
        dev_examples=sum(len(r.splits.dev) for r in results),
        test_examples=sum(len(r.splits.test) for r in results),
        train_seconds=round(sum(r.train_seconds for r in results), 3),
        hyperparameters=first.hyperparameters.as_record() if first.hyperparameters else None,
        model_path=portable_location(model_path) if model_path else None,
        dev_source=first.splits.dev_source,
        labels=labels,
        subsampled=_subsampled(results),
        # every fold has one when the first has: one run made them all
        majority_baseline=None
        if first.baseline_metrics is None
        else _median([r.baseline_metrics for r in results if r.baseline_metrics is not None]),
        constant_floors={
            floor: _median([(r.floor_metrics or {})[floor] for r in results])
            for floor in first.floor_metrics
        }
        if first.floor_metrics
        else None,
        fold_aggregate=FOLD_AGGREGATE if cross_validated else None,
        folds={str(r.fold): _fold_scores(r) for r in results} if cross_validated else None,
        best_step=None if cross_validated else first.best_step,
        stats={name: sum(r.stats[name] for r in results) for name in first.stats},
        grid_search=_grid_search(results),
    )


def _grid_search(
    results: Sequence[FoldResult],
) -> list[dict] | dict[str, list[dict] | None] | None:
    """Every grid point tried (with folds: by fold); None without a grid."""
    first = results[0]
    if not first.grid_search:
        return None
    if first.fold is None:
        return first.grid_search
    return {str(r.fold): r.grid_search for r in results}


def write_fold_predictions(
    handle: IO[str], family: TaskFamily, results: Sequence[FoldResult]
) -> None:
    """The family's prediction rows of each fold; with folds, each fold's rows follow a
    ``# fold <name>`` line."""
    for result in results:
        if result.fold is not None:
            handle.write(f"# fold {result.fold}\n")
        family.write_predictions(handle, result.splits.test, result.predictions)


def write_run_files(
    outputs: Mapping[str, str],
    family: TaskFamily,
    results: Sequence[FoldResult],
    record: MetricsRecord,
) -> None:
    """Write the folds' test predictions (``outputs["predictions"]``), then the record
    (``outputs["metrics"]``)."""
    with atomic_open(outputs["predictions"]) as handle:
        write_fold_predictions(handle, family, results)
    write_json(outputs["metrics"], record_data(record))
