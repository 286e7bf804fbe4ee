"""The metrics.json record shared by fine-tuning runs and baselines (docs/outputs.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from biocompact.finetuning.family import TaskFamily
from biocompact.finetuning.metrics import definitions
from biocompact.finetuning.splits import Splits


def metrics_record(
    *,
    model: str,
    task_name: str | None,
    seed: int | None,
    task: Mapping,
    family: TaskFamily,
    splits: Splits,
    test_metrics: Mapping[str, float],
    dev_metrics: Mapping[str, float],
    best_epoch: int | None,
    train_seconds: float,
    model_path: str | None,
    **extra: Any,
) -> dict[str, Any]:
    """Assemble one metrics.json record (the task name defaults to the config's ``name``);
    ``extra`` keys are appended at the end."""
    return {
        "model": model,
        "task": task_name or task.get("name"),
        "seed": seed,
        "family": family.name,
        "primary_metric": family.primary_metric(task, splits.labels),
        "metrics": dict(test_metrics),
        "dev_metrics": dict(dev_metrics),
        "definitions": definitions(family.metrics(task, splits.labels)),
        "best_epoch": best_epoch,
        "train_examples": len(splits.train),
        "dev_examples": len(splits.dev),
        "test_examples": len(splits.test),
        "train_seconds": round(train_seconds, 3),
        "hyperparameters": task.get("hyperparameters"),
        "model_path": model_path,
        "dev_source": splits.dev_source,
        "labels": splits.labels,
        **extra,
    }
