"""Efficiency and cost tables: model size, inference speed, training throughput, compute per stage."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from biocompact.report.tables import Table, frame_table, number

SETTING = ["device", "batch_size", "sequence_length"]


def efficiency_frame(results: Sequence[dict[str, Any]]) -> pd.DataFrame:
    """One row per (model, device, batch size, sequence length), with ``speedup``: tokens/s
    relative to the largest model (most parameters) on the same setting."""
    rows = [
        {
            "model": result["model"],
            "parameters": result["parameters"]["total"],
            "non_embedding": result["parameters"]["non_embedding"],
            **measurement,
        }
        for result in results
        for measurement in result["measurements"]
    ]
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    reference = frame[frame["model"] == largest_model(frame)].set_index(SETTING)[
        "tokens_per_second"
    ]
    frame["speedup"] = (
        frame["tokens_per_second"].to_numpy()
        / reference.reindex(pd.MultiIndex.from_frame(frame[SETTING])).to_numpy()
    )
    return frame


def largest_model(frame: pd.DataFrame) -> str:
    """The model with the most parameters (the speed-up reference)."""
    return frame.loc[frame["parameters"].idxmax(), "model"]


def reference_setting(frame: pd.DataFrame) -> pd.DataFrame:
    """The measurements on the CPU (GPU if none) with the largest batch, then the longest sequences."""
    device = "cpu" if (frame["device"] == "cpu").any() else frame["device"].iloc[0]
    rows = frame[frame["device"] == device]
    rows = rows[rows["batch_size"] == rows["batch_size"].max()]
    return rows[rows["sequence_length"] == rows["sequence_length"].max()]


def describe_setting(row: pd.Series) -> str:
    return f"{row['device']}, batch {row['batch_size']}, length {row['sequence_length']}"


def size_table(results: Sequence[dict[str, Any]]) -> Table:
    """Per model: architecture, parameters (total, embeddings, the rest) and share of the largest."""
    frame = pd.DataFrame(
        [
            {
                "model": r["model"],
                "layers": r["architecture"]["layers"],
                "hidden": r["architecture"]["hidden_size"],
                "parameters": r["parameters"]["total"],
                "embedding": r["parameters"]["embedding"],
                "non_embedding": r["parameters"]["non_embedding"],
            }
            for r in results
        ]
    )
    frame["of_largest"] = frame["parameters"] / frame["parameters"].max()
    table = frame_table(
        frame,
        {
            "layers": number,
            "hidden": number,
            "parameters": number,
            "embedding": number,
            "non_embedding": number,
            "of_largest": lambda v: f"{100 * v:.0f}%",
        },
    )
    table.columns = [
        "model",
        "layers",
        "hidden size",
        "parameters",
        "embedding",
        "non-embedding",
        "of the largest",
    ]
    return table


def speed_table(frame: pd.DataFrame) -> Table:
    """Every inference measurement with FLOPs per token and the speed-up against the largest model."""
    columns = [
        "model",
        *SETTING,
        "flops_per_token",
        "latency_ms",
        "sequences_per_second",
        "tokens_per_second",
        "speedup",
        "peak_memory_mb",
    ]
    formats = {
        "batch_size": number,
        "sequence_length": number,
        "flops_per_token": number,
        "latency_ms": lambda v: number(v, 2),
        "sequences_per_second": lambda v: number(v, 1),
        "tokens_per_second": number,
        "speedup": lambda v: f"{v:.2f}x",
        "peak_memory_mb": number,
    }
    ordered = frame.sort_values(SETTING, kind="stable")[columns]
    table = frame_table(ordered, formats)
    table.columns = [
        "model",
        "device",
        "batch",
        "length",
        "FLOPs/token",
        "latency (ms)",
        "sequences/s",
        "tokens/s",
        "speed-up",
        "peak memory (MB)",
    ]
    return table


def training_throughput(logs: pd.DataFrame) -> pd.DataFrame:
    """Per (stage, model) training log: steps, tokens, logged training seconds and tokens/s.

    Each log row covers the interval since the previous one (``elapsed_s``,
    ``tokens_per_second``); the throughput is the tokens of all intervals over their time.
    """
    if logs.empty or "elapsed_s" not in logs:
        return pd.DataFrame(
            columns=["stage", "model", "steps", "tokens", "seconds", "tokens_per_second"]
        )
    logs = logs.assign(interval_tokens=logs["tokens_per_second"] * logs["elapsed_s"])
    frame = (
        logs.groupby(["stage", "model"], sort=False)
        .agg(
            steps=("step", "max"),
            tokens=("tokens", "max"),
            seconds=("elapsed_s", "sum"),
            interval_tokens=("interval_tokens", "sum"),
        )
        .reset_index()
    )
    frame["tokens_per_second"] = frame["interval_tokens"] / frame["seconds"]
    return frame.drop(columns="interval_tokens")


def training_throughput_table(logs: pd.DataFrame) -> Table:
    table = frame_table(
        training_throughput(logs),
        {
            "steps": number,
            "tokens": number,
            "seconds": lambda v: number(v, 1),
            "tokens_per_second": number,
        },
    )
    table.columns = ["stage", "model", "steps", "tokens", "training time (s)", "tokens/s"]
    return table


def compute_cost(benchmarks: pd.DataFrame) -> pd.DataFrame:
    """Per stage: jobs, summed wall-clock and CPU seconds, the largest peak RSS; a total row."""
    cost = (
        benchmarks.groupby("stage")
        .agg(
            jobs=("job", "nunique"),
            wall_s=("s", "sum"),
            cpu_s=("cpu_time", "sum"),
            max_rss_mb=("max_rss", "max"),
        )
        .reset_index()
    )
    if cost.empty:
        return cost
    total = pd.DataFrame(
        [
            {
                "stage": "total",
                "jobs": cost["jobs"].sum(),
                "wall_s": cost["wall_s"].sum(),
                "cpu_s": cost["cpu_s"].sum(),
                "max_rss_mb": cost["max_rss_mb"].max(),
            }
        ]
    )
    return pd.concat([cost, total], ignore_index=True)


def compute_cost_table(benchmarks: pd.DataFrame) -> Table:
    table = frame_table(
        compute_cost(benchmarks),
        {
            "jobs": number,
            "wall_s": lambda v: number(v, 1),
            "cpu_s": lambda v: number(v, 1),
            "max_rss_mb": lambda v: number(v, 1),
        },
    )
    table.columns = ["stage", "jobs", "wall-clock (s)", "CPU time (s)", "largest peak RSS (MB)"]
    return table
