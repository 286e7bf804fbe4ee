"""Efficiency and cost tables: model size, inference speed, training throughput, compute per stage."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from biocompact.efficiency.speedup import speedup_range
from biocompact.records.base import record_data
from biocompact.records.efficiency import EfficiencyResult
from biocompact.report.tables import DASH, Cell, Table, frame_table, missing, number, speedup_text

SETTING = ["device", "batch_size", "sequence_length"]


# A measured speed-up is plausible when it is within this factor band of the FLOP ratio: the
# forward pass of an encoder is dominated by its matrix products, so time follows FLOPs, except
# that fixed per-layer costs (operator dispatch, memory traffic of small matrices) keep a small
# model from gaining its full FLOP ratio at small batches (down to about half of it), and cache
# effects rarely add more than half again. Outside the band the figure more likely reflects
# another load on the machine or overhead than the models: it is flagged.
PLAUSIBLE_BAND = (0.5, 1.5)
BAND_TEXT = f"{PLAUSIBLE_BAND[0]:g}-{PLAUSIBLE_BAND[1]:g}x the FLOP ratio"


SPEEDUP_COLUMNS = ["speedup", "speedup_min", "speedup_max", "flop_ratio", "of_flops", "plausible"]


def pair_speedup(row: pd.Series, reference: pd.Series | None) -> pd.Series:
    """The speed-up of the measurement ``row`` over ``reference`` (same setting; None: no such
    measurement): median, min and max over rounds (``speedup``, ``speedup_min``,
    ``speedup_max``), the FLOP ratio, the speed-up over it (``of_flops``) and whether that lies
    in ``PLAUSIBLE_BAND`` (``plausible``)."""
    if reference is None:
        return pd.Series([float("nan")] * 5 + [True], index=SPEEDUP_COLUMNS)
    speedups = speedup_range(reference["latency_ms_runs"], row["latency_ms_runs"])
    flop_ratio = reference["flops_per_token"] / row["flops_per_token"]
    of_flops = speedups[0] / flop_ratio
    values = [*speedups, flop_ratio, of_flops]
    plausible = PLAUSIBLE_BAND[0] <= of_flops <= PLAUSIBLE_BAND[1]
    return pd.Series([*values, plausible], index=SPEEDUP_COLUMNS)


def efficiency_frame(results: Sequence[EfficiencyResult]) -> pd.DataFrame:
    """One row per (model, device, batch size, sequence length), with the speed-up against the
    largest model (most parameters) on the same setting: ``speedup`` (median over timing
    rounds), ``speedup_min``, ``speedup_max``, ``flop_ratio`` (the largest model's FLOPs per
    token over this one's), ``of_flops`` (speed-up / FLOP ratio) and ``plausible``."""
    rows = [
        {
            "model": result.model,
            "parameters": result.parameters.total,
            "non_embedding": result.parameters.non_embedding,
            "weights_mb": result.weights_mb,
            "repeats": result.repeats,
            "threads": result.threads,
            "timing": result.timing,
            **record_data(measurement),  # the measurement's keys as its file holds them
        }
        for result in results
        for measurement in result.measurements
    ]
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    references = {
        tuple(row[SETTING]): row
        for _, row in frame[frame["model"] == largest_model(frame)].iterrows()
    }
    speedups = frame.apply(
        lambda row: pair_speedup(row, references.get(tuple(row[SETTING]))), axis=1
    )
    return pd.concat([frame, speedups], axis=1).astype(
        {column: float for column in SPEEDUP_COLUMNS[:-1]} | {"plausible": bool}
    )


def speedup_cell(row: pd.Series) -> Cell:
    """The speed-up with its range; flagged (``check``) when outside the plausible band."""
    if missing(row["speedup"]):
        return Cell(DASH, "no measurement of the reference model at this setting", numeric=True)
    title = (
        f"median over {row['repeats']} {row['timing']} of the reference's latency / this "
        f"model's, range over rounds; FLOP ratio {row['flop_ratio']:.2f}x, the speed-up is "
        f"{row['of_flops']:.2f}x of it (plausible: {BAND_TEXT})"
    )
    note = "" if row["plausible"] else f"check: {row['of_flops']:.2f}x the FLOP ratio"
    return Cell(speedup_text(row), title, note=note, numeric=True)


def largest_model(frame: pd.DataFrame) -> str:
    """The model with the most parameters (the speed-up reference)."""
    return str(frame.loc[frame["parameters"].idxmax(), "model"])


def reference_setting(frame: pd.DataFrame) -> pd.DataFrame:
    """The measurements on the CPU (GPU if none) with the largest batch, then the longest sequences."""
    device = "cpu" if (frame["device"] == "cpu").any() else frame["device"].iloc[0]
    rows = frame[frame["device"] == device]
    rows = rows[rows["batch_size"] == rows["batch_size"].max()]
    return rows[rows["sequence_length"] == rows["sequence_length"].max()]


def describe_setting(row: pd.Series) -> str:
    return f"{row['device']}, batch {row['batch_size']}, length {row['sequence_length']}"


def size_table(results: Sequence[EfficiencyResult]) -> Table:
    """Per model: architecture, parameters (total, embeddings, the rest) and share of the largest."""
    frame = pd.DataFrame(
        [
            {
                "model": r.model,
                "layers": r.architecture.layers,
                "hidden": r.architecture.hidden_size,
                "parameters": r.parameters.total,
                "embedding": r.parameters.embedding,
                "non_embedding": r.parameters.non_embedding,
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
    """Every inference measurement: FLOPs per token, median latency and its range over the
    timing rounds, throughput, the speed-up against the largest model with its range and the
    FLOP ratio it is checked against, the model's weights and the peak memory its pass adds to
    them."""
    table = Table(
        [
            "model",
            "device",
            "batch",
            "length",
            "FLOPs/token",
            "latency (ms)",
            "latency range (ms)",
            "sequences/s",
            "tokens/s",
            "speed-up (range)",
            "FLOP ratio",
            "weights (MB)",
            "activations, peak (MB)",
        ]
    )
    for _, row in frame.sort_values(SETTING, kind="stable").iterrows():
        table.add(
            [
                Cell(row["model"]),
                Cell(row["device"]),
                Cell(number(row["batch_size"]), numeric=True),
                Cell(number(row["sequence_length"]), numeric=True),
                Cell(number(row["flops_per_token"]), numeric=True),
                Cell(number(row["latency_ms"], 2), numeric=True),
                Cell(
                    f"{number(row['latency_ms_min'], 2)}-{number(row['latency_ms_max'], 2)}",
                    "min-max over the timing rounds",
                    numeric=True,
                ),
                Cell(number(row["sequences_per_second"], 1), numeric=True),
                Cell(number(row["tokens_per_second"]), numeric=True),
                speedup_cell(row),
                Cell(f"{row['flop_ratio']:.2f}x", numeric=True),
                Cell(number(row["weights_mb"], 1), numeric=True),
                Cell(number(row["peak_activations_mb"], 1), numeric=True),
            ]
        )
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
