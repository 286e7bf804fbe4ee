"""The constant floors of a task: predictions that ignore the input, which every fine-tuned
model is compared against. The majority class for every task; beside it, where the primary
metric is an F1 over positive classes, all-positive (``TaskFamily.all_positive``). Each is
written as a model of its own, in the fine-tuning runs' form (names in
``records.metrics.FLOOR_MODELS``)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from biocompact.finetuning.family import TaskFamily
from biocompact.finetuning.record import FoldResult, metrics_record, write_run_files
from biocompact.finetuning.splits import Splits, load_splits
from biocompact.finetuning.tasks import get_family
from biocompact.records.metrics import ALL_POSITIVE, MAJORITY_CLASS, MetricsRecord
from biocompact.taskfiles.folds import fold_tasks
from biocompact.taskfiles.settings import FinetuningTask

MODEL_NAME = MAJORITY_CLASS


def floor_predictions(
    family: TaskFamily, splits: Splits, task: FinetuningTask, split: str
) -> dict[str, list]:
    """Each constant floor that applies to ``task`` -> its predictions on ``split``."""
    examples = getattr(splits, split)
    floors = {MAJORITY_CLASS: family.majority(splits.train, examples)}
    positive = family.all_positive(splits.train, examples, task, splits.labels)
    if positive is not None:
        floors[ALL_POSITIVE] = positive
    return floors


def floor_outputs(folder: str | Path, floor: str) -> dict[str, str]:
    """Where a floor other than the majority class is written under the rule's ``floors``
    folder: ``FLOOR/metrics.json`` and ``FLOOR/predictions.tsv``."""
    return {
        "metrics": str(Path(folder) / floor / "metrics.json"),
        "predictions": str(Path(folder) / floor / "predictions.tsv"),
    }


def constant_floors(
    task: FinetuningTask, *, outputs: Mapping[str, str]
) -> dict[str, MetricsRecord]:
    """Score every constant floor of ``task`` on dev and test of every fold: the majority
    class into ``outputs["metrics"]`` and ``outputs["predictions"]``, every other floor that
    applies into ``outputs["floors"]`` (a folder, created even when none applies), each as a
    metrics.json in the fine-tuning form (``"model"``: the floor's name, ``"seed": null``)
    with its test predictions in the fine-tuning runs' form. Returns floor -> record."""
    family = get_family(task.family, task.format)
    results: dict[str, list[FoldResult]] = {}
    for fold, fold_task in fold_tasks(task):
        splits = load_splits(fold_task, family)
        test = floor_predictions(family, splits, fold_task, "test")
        dev = floor_predictions(family, splits, fold_task, "dev")
        for floor, predictions in test.items():
            test_scores = family.score(splits.test, predictions, fold_task, splits.labels)
            dev_scores = family.score(splits.dev, dev[floor], fold_task, splits.labels)
            results.setdefault(floor, []).append(
                FoldResult(fold, splits, test_scores, dev_scores, predictions)
            )
    if "floors" in outputs:
        Path(outputs["floors"]).mkdir(parents=True, exist_ok=True)
    records = {}
    for floor, floor_results in results.items():
        record = metrics_record(
            model=floor, seed=None, task=task, family=family, results=floor_results, model_path=None
        )
        if floor == MAJORITY_CLASS:
            write_run_files(outputs, family, floor_results, record)
        elif "floors" in outputs:
            write_run_files(floor_outputs(outputs["floors"], floor), family, floor_results, record)
        records[floor] = record
    return records


def majority_baseline(task: FinetuningTask, *, outputs: Mapping[str, str]) -> MetricsRecord:
    """``constant_floors`` of ``task``; the majority class's record (the other floors are
    written only where ``outputs`` has a ``floors`` folder)."""
    return constant_floors(task, outputs=outputs)[MAJORITY_CLASS]
