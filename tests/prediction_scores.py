"""Test helper: the scores of a fine-tuning predictions file, recomputed with the project's
metric functions, to check a metrics.json against the predictions beside it."""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path

from biocompact.finetuning.settings import FinetuningTask
from biocompact.finetuning.tasks import get_family


def read_predictions(path: Path, family: str) -> dict[str | None, tuple[list, list]]:
    """Gold and predicted labels per fold (None: no folds) of a fine-tuning predictions file:
    ``token<TAB>gold<TAB>predicted`` sentences for NER, else ``index<TAB>gold<TAB>predicted``
    rows after a header; each fold's rows follow a ``# fold NAME`` line."""
    parts = re.split(r"^# fold (.+)\n", path.read_text(encoding="utf-8"), flags=re.M)
    sections = (
        {None: parts[0]} if len(parts) == 1 else dict(zip(parts[1::2], parts[2::2], strict=True))
    )
    folds = {}
    for fold, text in sections.items():
        if family == "ner":
            blocks = [
                [line.split("\t") for line in block.splitlines()] for block in text.split("\n\n")
            ]
            sentences = [block for block in blocks if block]
            folds[fold] = (
                [[token[1] for token in sentence] for sentence in sentences],
                [[token[2] for token in sentence] for sentence in sentences],
            )
        else:
            rows = [line.split("\t") for line in text.splitlines()[1:]]
            folds[fold] = ([row[1] for row in rows], [row[2] for row in rows])
    return folds


def scores_from_predictions(
    metrics_file: Path, predictions_file: Path, task: dict
) -> dict[str, float]:
    """Every metric of ``metrics_file`` recomputed from ``predictions_file`` with the family's
    metric functions (the median over folds for a cross-validated task); ``task``: the
    task's config entry."""
    record = json.loads(metrics_file.read_text(encoding="utf-8"))
    settings = FinetuningTask.from_entry({"name": record["task"], **task})
    metrics = get_family(settings.family, settings.format).metrics(settings, record["labels"])
    folds = read_predictions(predictions_file, settings.family)
    return {
        name: statistics.median(
            metric.compute(gold, predicted) for gold, predicted in folds.values()
        )
        for name, metric in metrics.items()
    }
