"""Majority-class baseline: the floor every fine-tuned model is compared against."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from biocompact.atomic import write_json
from biocompact.finetuning.record import metrics_record
from biocompact.finetuning.splits import load_splits
from biocompact.finetuning.tasks import get_family

MODEL_NAME = "majority-class"


def majority_baseline(
    task: Mapping, out_metrics: str, *, task_name: str | None = None
) -> dict[str, Any]:
    """Predict the most frequent training label (NER: all O), score dev and test, write
    metrics.json in the fine-tuning form with ``"model": "majority-class"``, ``"seed": null``."""
    family = get_family(task["family"])
    splits = load_splits(task, family)

    def scores(examples: list) -> dict[str, float]:
        predictions = family.majority(splits.train, examples)
        return family.score(examples, predictions, task, splits.labels)

    record = metrics_record(
        model=MODEL_NAME,
        task_name=task_name,
        seed=None,
        task=task,
        family=family,
        splits=splits,
        test_metrics=scores(splits.test),
        dev_metrics=scores(splits.dev),
        best_epoch=None,
        train_seconds=0.0,
        model_path=None,
    )
    write_json(out_metrics, record)
    return record
