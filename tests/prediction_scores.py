"""Test helper: the scores of a fine-tuning predictions file, recomputed with the project's
metric functions, to check a metrics.json against the predictions beside it."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

from biocompact.entries import parse_entry
from biocompact.finetuning.tasks import get_family
from biocompact.taskfiles.settings import FinetuningTask


def scores_from_predictions(
    metrics_file: Path, predictions_file: Path, task: dict
) -> dict[str, float]:
    """Every metric of ``metrics_file`` recomputed from ``predictions_file`` with the family's
    metric functions (the median over folds for a cross-validated task); ``task``: the
    task's config entry."""
    record = json.loads(metrics_file.read_text(encoding="utf-8"))
    settings = parse_entry(FinetuningTask, {"name": record["task"], **task})
    family = get_family(settings.family, settings.format)
    metrics = family.metrics(settings, record["labels"])
    folds = family.read_predictions(predictions_file)
    return {
        name: statistics.median(metric.compute(fold.gold, fold.predicted) for fold in folds)
        for name, metric in metrics.items()
    }
