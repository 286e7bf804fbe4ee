"""Results the papers publish, shown beside ours for the same dataset and metric (never in
our averages). The data file ``workflow/report/published_results.csv`` has one row per
(source, model, dataset, metric, setting) with the value as a fraction, the citation, the
table and how the paper's protocol differs from ours."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from biocompact.report.aggregation import BLURB
from biocompact.report.tables import Cell, Table, models_in_order, percent

COLUMNS = ["source", "model", "dataset", "metric", "setting", "value", "citation", "table", "note"]
KEY = ["source", "model", "dataset", "metric", "setting"]
BLURB_DATASET, BLURB_METRIC = "blurb", "blurb_score"
NAN = float("nan")


def read_published(path: str | Path) -> pd.DataFrame:
    """The published results, checked: the columns above, values in [0, 1], unique keys."""
    frame = pd.read_csv(path, dtype={"setting": str}, keep_default_na=False)
    if list(frame.columns) != COLUMNS:
        raise ValueError(f"{path}: expected the columns {COLUMNS}, got {list(frame.columns)}")
    values = pd.to_numeric(frame["value"], errors="coerce")
    bad = frame.index[~values.between(0, 1)]
    if len(bad):
        raise ValueError(f"{path}:{bad[0] + 2}: value {frame['value'][bad[0]]!r} is not in [0, 1]")
    duplicated = frame.index[frame.duplicated(KEY)]
    if len(duplicated):
        raise ValueError(f"{path}:{duplicated[0] + 2}: repeats the key {KEY}")
    return frame.assign(value=values)


def published_table(
    summary: pd.DataFrame,
    averages: pd.DataFrame,
    published: pd.DataFrame,
    datasets: Mapping[str, str],
) -> Table | None:
    """One row per published result matching one of our (task, metric) medians (or our
    BLURB score): our medians in their columns, the paper's value, source and protocol
    note in theirs. None when nothing matches."""
    models = models_in_order(summary)
    by_key: dict[tuple[str, str], dict[str, float]] = {}
    tasks: dict[tuple[str, str], str] = {}
    for _, row in summary.iterrows():
        if row["task"] in datasets:
            key = (datasets[row["task"]], row["metric"])
            by_key.setdefault(key, {})[row["model"]] = row["median"]
            tasks[key] = row["task"]
    blurb = averages[averages["group"] == BLURB]
    if not blurb.empty:
        by_key[BLURB_DATASET, BLURB_METRIC] = dict(zip(blurb["model"], blurb["value"]))
        tasks[BLURB_DATASET, BLURB_METRIC] = "BLURB score"
    table = Table(
        [
            "Task (metric)",
            *[f"{model} (ours)" for model in models],
            "Published model",
            "Published",
            "Source",
            "Protocol",
        ]
    )
    for _, paper in published.iterrows():
        key = (paper["dataset"], paper["metric"])
        if key not in by_key:
            continue
        label = f"{tasks[key]} ({paper['metric']})"
        setting = f", {paper['setting']}" if paper["setting"] else ""
        table.add(
            [
                Cell(label),
                *[Cell(percent(by_key[key].get(model, NAN)), numeric=True) for model in models],
                Cell(paper["model"] + setting),
                Cell(percent(paper["value"]), numeric=True),
                Cell(f"{paper['citation']}, {paper['table']}"),
                Cell(paper["note"]),
            ]
        )
    return table if table.rows else None
