"""The compression summary: one row per (model, task, seed, format) from the formats'
``evaluation.json`` files, with the change of the primary score against fp32 and the speed-up
over fp32 with its range over the interleaved timing rounds; the report reads it.

Dynamic int8 quantisation and ONNX Runtime leave the FLOPs of the forward pass unchanged, so
the FLOP-ratio band of the efficiency table does not apply; what is expected is that a format
is not slower than fp32. A format is flagged (``slower_than_fp32``) when it was slower than fp32
in every timing round (the maximum of its per-round speed-ups below 1): the rounds interleave
the formats, so a slow spell of a shared machine slows fp32 in the same round and cannot make
every round lose; the slowdown is the format's own (e.g. quantise/dequantise overhead at a
small batch, or a runtime given other threads).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from biocompact.compression.settings import REFERENCE
from biocompact.efficiency.speedup import speedup_range
from biocompact.files.atomic import atomic_open
from biocompact.records.compressed_format import CompressedFormatEvaluation

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
    "latency_ms_min",
    "latency_ms_max",
    "speedup",
    "speedup_min",
    "speedup_max",
    "slower_than_fp32",
    "threads",
    "repeats",
]
SPEEDUP = ["speedup", "speedup_min", "speedup_max"]


def summary_frame(evaluations: Iterable[CompressedFormatEvaluation]) -> pd.DataFrame:
    """Rows of the summary: the primary test score, its change against the fp32 model of the
    same (model, task, seed) (score - fp32 score), the weights' size, and at the first
    measurement (the first configured batch size and sequence length) the median CPU latency
    with its min and max over rounds, the speed-up over fp32 (median, min and max over rounds
    of fp32's latency / this format's; empty for fp32 and when either has no measurement) and
    ``slower_than_fp32`` (see the module docstring)."""
    rows = []
    for evaluation in evaluations:
        first = evaluation.measurements[0] if evaluation.measurements else None
        rows.append(
            {
                "model": evaluation.model,
                "task": evaluation.task,
                "seed": evaluation.seed,
                "format": evaluation.format,
                "primary_metric": evaluation.primary_metric,
                "score": evaluation.primary_score,
                "size_mb": evaluation.size_mb,
                # None without a measurement
                "batch_size": first and first.batch_size,
                "sequence_length": first and first.sequence_length,
                "latency_ms": first and first.latency_ms,
                "latency_ms_min": first and first.latency_ms_min,
                "latency_ms_max": first and first.latency_ms_max,
                "runs": first and first.latency_ms_runs,
                "threads": evaluation.threads,
                "repeats": evaluation.repeats,
            }
        )
    measured = [c for c in COLUMNS if c not in {"score_change", *SPEEDUP, "slower_than_fp32"}]
    frame = pd.DataFrame(rows, columns=[*measured, "runs"])
    keys = ["model", "task", "seed"]
    reference = frame.loc[frame["format"] == REFERENCE, [*keys, "score", "runs"]].rename(
        columns={"score": "reference_score", "runs": "reference_runs"}
    )
    frame = frame.merge(reference, on=keys, how="left")
    frame["score_change"] = frame["score"] - frame["reference_score"]
    speedups = [_speedup(row) for _, row in frame.iterrows()]
    frame[SPEEDUP] = pd.DataFrame(speedups, index=frame.index, columns=SPEEDUP, dtype=float)
    frame["slower_than_fp32"] = frame["speedup_max"] < 1
    return frame[COLUMNS]


def _speedup(row: pd.Series) -> list[float]:
    """``speedup_range`` of fp32's rounds over this row's; NaN for fp32 or a missing timing."""
    runs, reference = row["runs"], row["reference_runs"]
    if row["format"] == REFERENCE or not isinstance(runs, list) or not isinstance(reference, list):
        return [float("nan")] * 3
    return list(speedup_range(reference, runs))


def write_summary(paths: Iterable[str | Path], output: str | Path) -> pd.DataFrame:
    """Write the summary CSV of the ``evaluation.json`` files ``paths``."""
    frame = summary_frame(CompressedFormatEvaluation.read(path) for path in paths)
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
