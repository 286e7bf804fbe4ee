"""Result files as the workflow writes them, for report tests (imported as ``report_results``)."""

from __future__ import annotations

import json
from pathlib import Path


def write_json(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


def metrics_record(
    model: str,
    task: str,
    seed: int | None,
    family: str,
    primary: str,
    values: dict[str, float],
    definitions: dict[str, str] | None = None,
) -> dict:
    """A fine-tuning run's or baseline's metrics.json: its ``values``, ``primary`` among them,
    with their ``definitions`` when given."""
    record = {
        "model": model,
        "task": task,
        "seed": seed,
        "family": family,
        "primary_metric": primary,
        "metrics": values,
    }
    if definitions is not None:
        record["definitions"] = definitions
    return record


def metrics(
    model: str, task: str, seed: int | None, f1: float, accuracy: float | None = None
) -> dict:
    """``metrics_record`` with F1 primary, accuracy when given, the family the task name's
    first part (ner-a: ner)."""
    values = {"f1": f1}
    definitions = {"f1": f"F1 of {task}"}
    if accuracy is not None:
        values["accuracy"] = accuracy
        definitions["accuracy"] = "share of correct predictions"
    return metrics_record(model, task, seed, task.split("-")[0], "f1", values, definitions)
