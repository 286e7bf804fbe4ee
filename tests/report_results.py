"""Result files as the workflow writes them, for report tests (imported as ``report_results``)."""

from __future__ import annotations

import json
from pathlib import Path


def write_json(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


def metrics(
    model: str, task: str, seed: int | None, f1: float, accuracy: float | None = None
) -> dict:
    """A fine-tuning run's or baseline's metrics.json: F1 primary, accuracy when given."""
    values = {"f1": f1}
    definitions = {"f1": f"F1 of {task}"}
    if accuracy is not None:
        values["accuracy"] = accuracy
        definitions["accuracy"] = "share of correct predictions"
    return {
        "model": model,
        "task": task,
        "seed": seed,
        "family": task.split("-")[0],
        "primary_metric": "f1",
        "metrics": values,
        "definitions": definitions,
    }
