"""The compression summary: one row per (model, task, seed, format) from the formats'
``evaluation.json`` files, with the change of the primary score against fp32; the report
reads it."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from biocompact.atomic import atomic_open, read_json
from biocompact.compression.settings import REFERENCE

COLUMNS = [
    "model",
    "task",
    "seed",
    "format",
    "primary_metric",
    "score",
    "score_change",
    "size_mb",
    "batch_size",
    "sequence_length",
    "latency_ms",
    "threads",
]


def summary_frame(evaluations: Iterable[dict]) -> pd.DataFrame:
    """Rows of the summary: the primary test score, its change against the fp32 model of the
    same (model, task, seed) (score - fp32 score), the weights' size and the CPU latency of
    the first measurement (the first configured batch size and sequence length)."""
    rows = []
    for evaluation in evaluations:
        first = evaluation["measurements"][0] if evaluation["measurements"] else {}
        rows.append(
            {
                "model": evaluation["model"],
                "task": evaluation["task"],
                "seed": evaluation["seed"],
                "format": evaluation["format"],
                "primary_metric": evaluation["primary_metric"],
                "score": evaluation["metrics"][evaluation["primary_metric"]],
                "size_mb": evaluation["size_mb"],
                "batch_size": first.get("batch_size"),
                "sequence_length": first.get("sequence_length"),
                "latency_ms": first.get("latency_ms"),
                "threads": evaluation["threads"],
            }
        )
    frame = pd.DataFrame(rows, columns=[c for c in COLUMNS if c != "score_change"])
    keys = ["model", "task", "seed"]
    reference = frame.loc[frame["format"] == REFERENCE, [*keys, "score"]].rename(
        columns={"score": "reference_score"}
    )
    frame = frame.merge(reference, on=keys, how="left")
    frame["score_change"] = frame["score"] - frame["reference_score"]
    return frame[COLUMNS]


def write_summary(paths: Iterable[str | Path], output: str | Path) -> pd.DataFrame:
    """Write the summary CSV of the ``evaluation.json`` files ``paths``."""
    frame = summary_frame(read_json(path) for path in paths)
    with atomic_open(output) as handle:
        frame.to_csv(handle, index=False)
    return frame


def read_summary(path: str | Path) -> pd.DataFrame:
    """The summary CSV written by ``write_summary``."""
    frame = pd.read_csv(path)
    missing = sorted(set(COLUMNS) - set(frame.columns))
    if missing:
        raise ValueError(f"{path}: not a compression summary, missing columns {missing}")
    return frame
