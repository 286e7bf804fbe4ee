"""Majority-class baseline: the floor every fine-tuned model is compared against."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from biocompact.finetuning.record import FoldResult, metrics_record, write_run_files
from biocompact.finetuning.settings import FinetuningTask
from biocompact.finetuning.splits import load_splits
from biocompact.finetuning.task_files import fold_tasks
from biocompact.finetuning.tasks import get_family

MODEL_NAME = "majority-class"


def majority_baseline(task: FinetuningTask, *, outputs: Mapping[str, str]) -> dict[str, Any]:
    """Predict the most frequent training label (NER: all O; QA: the most frequent
    answers), score dev and test of every fold, write metrics.json (``outputs["metrics"]``)
    in the fine-tuning form with ``"model": "majority-class"``, ``"seed": null``, and the
    test predictions in the fine-tuning runs' form (``outputs["predictions"]``)."""
    family = get_family(task.family, task.format)
    results = []
    for fold, fold_task in fold_tasks(task):
        splits = load_splits(fold_task, family)
        test = family.majority(splits.train, splits.test)
        dev = family.majority(splits.train, splits.dev)
        test_scores = family.score(splits.test, test, fold_task, splits.labels)
        dev_scores = family.score(splits.dev, dev, fold_task, splits.labels)
        results.append(FoldResult(fold, splits, test_scores, dev_scores, test))
    record = metrics_record(
        model=MODEL_NAME, seed=None, task=task, family=family, results=results, model_path=None
    )
    write_run_files(outputs, family, results, record)
    return record.as_record()
