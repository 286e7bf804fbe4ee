"""Figures of the report as inline SVG (text kept as text, no external references)."""

from __future__ import annotations

import io
import re

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import NullFormatter

from biocompact.aggregation import BASELINE

SVG_START = re.compile(r"^.*?(?=<svg)", re.DOTALL)
SVG_METADATA = re.compile(r"<metadata>.*?</metadata>\s*", re.DOTALL)


def to_svg(figure: Figure) -> str:
    """The figure as an ``<svg>`` element without XML prolog, DOCTYPE or metadata."""
    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "biocompact"}):
        figure.savefig(buffer, format="svg", bbox_inches="tight")
    return SVG_METADATA.sub("", SVG_START.sub("", buffer.getvalue(), count=1))


def _grid(n_panels: int, columns: int = 3, size: tuple[float, float] = (4.2, 3.2)) -> tuple[Figure, list]:
    columns = min(columns, n_panels)
    rows = -(-n_panels // columns)
    figure = Figure(figsize=(size[0] * columns, size[1] * rows), layout="constrained")
    axes = figure.subplots(rows, columns, squeeze=False).ravel()
    for unused in axes[n_panels:]:
        unused.set_visible(False)
    return figure, list(axes[:n_panels])


def seed_spread(scores: pd.DataFrame, summary: pd.DataFrame) -> str:
    """Per task: every seed's primary-metric score (x 100) per model, the median as a bar."""
    primary = summary[summary["primary"] & (summary["model"] != BASELINE) & (summary["n_seeds"] > 0)]
    tasks = list(dict.fromkeys(primary["task"]))
    models = list(dict.fromkeys(primary["model"]))
    figure, axes = _grid(max(len(tasks), 1))
    jitter = np.random.default_rng(0)
    for axis, task in zip(axes, tasks):
        metric = primary.loc[primary["task"] == task, "metric"].iloc[0]
        for x, model in enumerate(models):
            values = scores[(scores["model"] == model) & (scores["task"] == task) & (scores["metric"] == metric)]
            values = values["value"].dropna() * 100
            axis.scatter(x + jitter.uniform(-0.12, 0.12, len(values)), values, s=18, alpha=0.75)
            if len(values):
                axis.hlines(values.median(), x - 0.25, x + 0.25, color="black", linewidth=2)
        axis.set_xticks(range(len(models)), models, rotation=30, ha="right")
        axis.set_title(task)
        axis.set_ylabel(f"{metric} x 100")
        axis.grid(axis="y", alpha=0.3)
    return to_svg(figure)


def pareto_front(x: pd.Series, y: pd.Series, maximise_x: bool) -> pd.Series:
    """True for the points no other point beats on both x and y (y is maximised)."""
    sign = 1 if maximise_x else -1
    points = list(zip(sign * x.to_numpy(), y.to_numpy()))
    return pd.Series(
        [not any(a >= px and b >= py and (a, b) != (px, py) for a, b in points) for px, py in points],
        index=x.index,
    )


def tradeoff(frame: pd.DataFrame, x: str, xlabel: str, maximise_x: bool) -> str:
    """Overall average (x 100) against ``x`` (log scale), the Pareto front drawn as a line."""
    figure = Figure(figsize=(6, 4.2), layout="constrained")
    axis = figure.subplots()
    front = frame[pareto_front(frame[x], frame["overall"], maximise_x)].sort_values(x)
    axis.plot(front[x], front["overall"] * 100, color="tab:red", linestyle="--", label="Pareto front", zorder=1)
    axis.scatter(frame[x], frame["overall"] * 100, zorder=2)
    for _, row in frame.iterrows():
        axis.annotate(row["model"], (row[x], row["overall"] * 100), textcoords="offset points", xytext=(5, 5))
    axis.set_xscale("log")
    axis.xaxis.set_minor_formatter(NullFormatter())
    axis.set_xlabel(xlabel)
    axis.set_ylabel("overall average x 100")
    axis.legend()
    axis.grid(alpha=0.3)
    return to_svg(figure)


def training_curves(logs: pd.DataFrame) -> str:
    """Per model: the total loss and every ``loss_*`` term against the step."""
    runs = list(logs.groupby(["stage", "model"], sort=False))
    figure, axes = _grid(max(len(runs), 1))
    for axis, ((stage, model), log) in zip(axes, runs):
        for column in [c for c in log.columns if (c == "loss" or c.startswith("loss_")) and log[c].notna().any()]:
            points = log[["step", column]].dropna()
            axis.plot(points["step"], points[column], label=column, linewidth=2 if column == "loss" else 1)
        axis.set_title(f"{model} ({stage})")
        axis.set_xlabel("step")
        axis.set_ylabel("loss")
        axis.legend(fontsize="small")
        axis.grid(alpha=0.3)
    return to_svg(figure)
