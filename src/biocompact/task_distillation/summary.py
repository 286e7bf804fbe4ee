"""Gather the evaluations of task-specific distillation into one long table, the medians
over seeds per (experiment, transfer set, setting, metric). Light: pandas only.

Settings: ``teacher`` and ``untrained`` (the student without transfer) do not depend on the
transfer set (their ``transfer`` is empty); ``distilled`` and ``direct`` have one row per
transfer set."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from biocompact.files.atomic import atomic_open
from biocompact.records.classifier_evaluation import TEACHER, ClassifierEvaluation

SETTINGS = {
    TEACHER: "teacher",
    "distilled": "student after distillation",
    "direct": "student fine-tuned directly",
    "untrained": "student without transfer",
}
AGREEMENT = "teacher_agreement"  # the students' extra metric (see evaluation)
RUN_KEYS = ["experiment", "task", "teacher", "student", "transfer", "setting"]
SUMMARY_COLUMNS = [
    *RUN_KEYS,
    "metric",
    "primary",
    "median",
    "mean",
    "std",
    "min",
    "max",
    "n_seeds",
    "definition",
]


def summarise(runs: Sequence[Mapping]) -> pd.DataFrame:
    """One row per (run keys, metric) over the seeds of ``runs``; each run is a mapping of
    ``RUN_KEYS`` (``transfer`` "" where it does not apply) and the ``path`` of its
    ``evaluation.json``."""
    rows = []
    for run in runs:
        if run["setting"] not in SETTINGS:
            raise ValueError(f"unknown setting {run['setting']!r}; known: {list(SETTINGS)}")
        scores = ClassifierEvaluation.read(run["path"]).scores
        for metric, value in scores.metrics.items():
            rows.append(
                {
                    **{key: run[key] for key in RUN_KEYS},
                    "metric": metric,
                    "value": value,
                    "primary": metric == scores.primary_metric,
                    "definition": scores.definitions[metric],
                }
            )
    frame = pd.DataFrame(rows, columns=[*RUN_KEYS, "metric", "value", "primary", "definition"])
    summary = (
        frame.groupby([*RUN_KEYS, "metric"], sort=False)["value"]
        .agg(
            median="median",
            mean="mean",
            std=lambda v: v.std(ddof=1),
            min="min",
            max="max",
            n_seeds="count",
        )
        .reset_index()
    )
    first = (
        frame.groupby([*RUN_KEYS, "metric"], sort=False)[["primary", "definition"]]
        .first()
        .reset_index()
    )
    return summary.merge(first, on=[*RUN_KEYS, "metric"])[SUMMARY_COLUMNS]


def write_summary(out: str | Path, runs: Sequence[Mapping]) -> pd.DataFrame:
    """Write ``summarise(runs)`` as CSV, atomically."""
    summary = summarise(runs)
    with atomic_open(out) as handle:
        summary.to_csv(handle, index=False)
    return summary


def read_summary(path: str | Path) -> pd.DataFrame:
    """The summary CSV with empty ``transfer`` and ``definition`` as ""."""
    summary = pd.read_csv(path, dtype={"transfer": str, "definition": str})
    summary[["transfer", "definition"]] = summary[["transfer", "definition"]].fillna("")
    return summary
