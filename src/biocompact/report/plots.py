"""Figures of the report as inline SVG (text kept as text, no external references)."""

from __future__ import annotations

import io
import re

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import EngFormatter, NullFormatter

from biocompact.records.metrics import FLOOR_MODELS

SVG_START = re.compile(r"^.*?(?=<svg)", re.DOTALL)
SVG_METADATA = re.compile(r"<metadata>.*?</metadata>\s*", re.DOTALL)


def to_svg(figure: Figure) -> str:
    """The figure as an ``<svg>`` element without XML prolog, DOCTYPE or metadata."""
    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "biocompact"}):
        figure.savefig(buffer, format="svg", bbox_inches="tight")
    return SVG_METADATA.sub("", SVG_START.sub("", buffer.getvalue(), count=1))


def _grid(
    n_panels: int, columns: int = 3, size: tuple[float, float] = (4.2, 3.2)
) -> tuple[Figure, list]:
    columns = min(columns, n_panels)
    rows = -(-n_panels // columns)
    figure = Figure(figsize=(size[0] * columns, size[1] * rows), layout="constrained")
    axes = figure.subplots(rows, columns, squeeze=False).ravel()
    for unused in axes[n_panels:]:
        unused.set_visible(False)
    return figure, list(axes[:n_panels])


def seed_spread(scores: pd.DataFrame, summary: pd.DataFrame) -> str:
    """Per task: every seed's primary-metric score (x 100) per model, the median as a bar,
    the task's strongest constant floor as a dashed horizontal line; a model with missing
    seeds is labelled with the seeds it has (e.g. ``small (2/3)``)."""
    is_floor = summary["model"].isin(FLOOR_MODELS)
    floors = summary[summary["primary"] & is_floor].dropna(subset=["median"])
    primary = summary[summary["primary"] & ~is_floor & (summary["n_seeds"] > 0)]
    tasks = list(dict.fromkeys(primary["task"]))
    models = list(dict.fromkeys(primary["model"]))
    figure, axes = _grid(max(len(tasks), 1))
    jitter = np.random.default_rng(0)
    for axis, task in zip(axes, tasks):
        rows = primary[primary["task"] == task].set_index("model")
        metric = rows["metric"].iloc[0]
        labels = []
        for x, model in enumerate(models):
            values = scores[
                (scores["model"] == model) & (scores["task"] == task) & (scores["metric"] == metric)
            ]
            values = values["value"].dropna() * 100
            axis.scatter(
                x + jitter.uniform(-0.12, 0.12, len(values)),
                values,
                s=18,
                alpha=0.75,
                color=f"C{x}",
            )
            if len(values):
                axis.hlines(values.median(), x - 0.25, x + 0.25, color="black", linewidth=2)
            seeds = rows.loc[model, ["n_seeds", "n_expected"]] if model in rows.index else None
            label = model
            if seeds is not None and seeds["n_seeds"] < seeds["n_expected"]:  # partial
                label = f"{model} ({seeds['n_seeds']}/{seeds['n_expected']})"
            labels.append(label)
        task_floors = floors[floors["task"] == task]
        if not task_floors.empty:
            floor = task_floors.loc[task_floors["median"].idxmax()]
            axis.axhline(
                floor["median"] * 100,
                color="grey",
                linestyle="--",
                linewidth=1,
                label=f"{floor['model']} {floor['median'] * 100:.1f}",
            )
            axis.legend(fontsize="small", loc="lower right")
        axis.set_xticks(range(len(models)), labels, rotation=30, ha="right")
        axis.set_xlim(-0.5, len(models) - 0.5)
        axis.set_title(task)
        axis.set_ylabel(f"{metric} x 100")
        axis.grid(axis="y", alpha=0.3)
    return to_svg(figure)


def tradeoff(frame: pd.DataFrame, x: str, xlabel: str) -> str:
    """Overall average (x 100) against ``x``, with its 95% interval as an error bar where the
    frame has one (``ci_low``, ``ci_high``), the models of the ``pareto`` column joined by a line.

    The x axis is logarithmic when the values span more than a factor of 10; tick labels
    use SI prefixes (``20k``, ``4M``).
    """
    figure = Figure(figsize=(6, 4.2), layout="constrained")
    axis = figure.subplots()
    front = frame[frame["pareto"]].sort_values(x)
    axis.plot(
        front[x],
        front["overall"] * 100,
        color="tab:red",
        linestyle="--",
        label="Pareto front",
        zorder=1,
    )
    bounds = frame[["ci_low", "ci_high"]] if "ci_low" in frame else None
    if bounds is not None and bounds.notna().all().all():
        axis.errorbar(
            frame[x],
            frame["overall"] * 100,
            yerr=[
                ((frame["overall"] - frame["ci_low"]) * 100).clip(lower=0),
                ((frame["ci_high"] - frame["overall"]) * 100).clip(lower=0),
            ],
            fmt="o",
            capsize=3,
            zorder=2,
            label="overall average, 95% interval",
        )
        axis.set_title("Pareto front on the point estimates", fontsize="small")
    else:
        axis.scatter(frame[x], frame["overall"] * 100, zorder=2)
        axis.set_title("point estimates (no intervals)", fontsize="small")
    for _, row in frame.iterrows():
        axis.annotate(
            row["model"], (row[x], row["overall"] * 100), textcoords="offset points", xytext=(5, 5)
        )
    if frame[x].max() > 10 * frame[x].min():
        axis.set_xscale("log")
        axis.xaxis.set_minor_formatter(NullFormatter())
    axis.xaxis.set_major_formatter(EngFormatter(sep=""))
    axis.margins(0.2)
    axis.set_xlabel(xlabel)
    axis.set_ylabel("overall average x 100")
    axis.legend()
    axis.grid(alpha=0.3)
    return to_svg(figure)


def speedup(frame: pd.DataFrame, reference: str) -> str:
    """Relative inference speed-up against ``reference`` per model and setting (as in Bioformer's
    Figure 3D) with its min-max over timing rounds, beside each model's peak memory per device:
    its weights and the largest peak of its passes' activations."""
    figure = Figure(figsize=(11, 0.6 + 0.45 * len(frame)), layout="constrained")
    speed_axis, memory_axis = figure.subplots(1, 2, width_ratios=[2, 1])
    settings = (
        frame[["device", "batch_size", "sequence_length"]].drop_duplicates().reset_index(drop=True)
    )
    models = list(dict.fromkeys(frame["model"]))
    height = 0.8 / len(settings)
    for index, (_, setting) in enumerate(settings.iterrows()):
        selected = (frame[settings.columns] == setting).all(axis=1)
        rows = frame[selected].set_index("model").reindex(models)
        label = f"{setting['device']}, batch {setting['batch_size']}, length {setting['sequence_length']}"
        positions = np.arange(len(models)) + (index - (len(settings) - 1) / 2) * height
        spread = [
            (rows["speedup"] - rows["speedup_min"]).fillna(0),
            (rows["speedup_max"] - rows["speedup"]).fillna(0),
        ]
        speed_axis.barh(
            positions,
            rows["speedup"],
            xerr=spread,
            height=height,
            label=label,
            color=f"C{index}",
            error_kw={"elinewidth": 1, "capsize": 2},
        )
    speed_axis.axvline(1, color="black", linewidth=1)
    speed_axis.set_yticks(range(len(models)), models)
    speed_axis.invert_yaxis()
    speed_axis.set_xlabel(
        f"inference speed-up vs {reference}: median over interleaved rounds, min-max whiskers"
    )
    speed_axis.legend(fontsize="small")
    speed_axis.grid(axis="x", alpha=0.3)
    memory = (
        frame.assign(peak=frame["weights_mb"] + frame["peak_activations_mb"])
        .groupby(["model", "device"], sort=False)["peak"]
        .max()
        .unstack()
        .reindex(models)
    )
    for index, device in enumerate(memory.columns):
        positions = np.arange(len(models)) + (index - (len(memory.columns) - 1) / 2) * 0.8 / len(
            memory.columns
        )
        memory_axis.barh(
            positions,
            memory[device],
            height=0.8 / len(memory.columns),
            label=device,
            color=f"C{index + len(settings)}",
        )
    memory_axis.set_yticks(range(len(models)), models)
    memory_axis.invert_yaxis()
    memory_axis.set_xlabel("peak memory: weights + activations (MB)")
    memory_axis.legend(fontsize="small")
    memory_axis.grid(axis="x", alpha=0.3)
    return to_svg(figure)


def training_curves(logs: pd.DataFrame) -> str:
    """Per model: the total loss and every ``loss_*`` term against the step (log scale when they
    span more than a factor of 10, so that small terms stay visible); a term equal to the total at every step is drawn once, as ``loss``."""
    runs = list(logs.groupby(["stage", "model"], sort=False))
    figure, axes = _grid(max(len(runs), 1))
    for axis, ((stage, model), log) in zip(axes, runs):
        terms = [c for c in log.columns if c.startswith("loss_") and log[c].notna().any()]
        same = [c for c in terms if np.allclose(log[c], log["loss"], equal_nan=True)]
        label = "loss" + (f" (= {', '.join(same)})" if same else "")
        axis.plot(log["step"], log["loss"], label=label, linewidth=2, color="black")
        for index, column in enumerate(c for c in terms if c not in same):
            points = log[["step", column]].dropna()
            axis.plot(
                points["step"], points[column], label=column, linewidth=1.2, color=f"C{index}"
            )
        values = log[["loss", *terms]].to_numpy(dtype=float)
        if (values[~np.isnan(values)] > 0).all() and np.nanmax(values) > 10 * np.nanmin(values):
            axis.set_yscale("log")
        axis.set_title(f"{model} ({stage})")
        axis.set_xlabel("step")
        axis.set_ylabel("loss")
        axis.legend(fontsize="small")
        axis.grid(alpha=0.3, which="both")
    return to_svg(figure)
