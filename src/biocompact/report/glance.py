"""The report's first screen: which model, how good, how fast, at what size."""

from __future__ import annotations

import pandas as pd

from biocompact.aggregation import BASELINE, OVERALL
from biocompact.report.costs import describe_setting, largest_model, reference_setting
from biocompact.report.tables import Cell, Table, number, percent


def pareto_front(x: pd.Series, y: pd.Series, maximise_x: bool) -> pd.Series:
    """True for the points no other point beats on both x and y (y is maximised)."""
    sign = 1 if maximise_x else -1
    points = list(zip(sign * x.to_numpy(), y.to_numpy()))
    return pd.Series(
        [
            not any(a >= px and b >= py and (a, b) != (px, py) for a, b in points)
            for px, py in points
        ],
        index=x.index,
    )


def tradeoff_frame(averages: pd.DataFrame, efficiency: pd.DataFrame) -> pd.DataFrame:
    """Per model with both: overall average, and at the reference setting tokens/s, speed-up,
    latency and parameters; ``pareto`` marks the accuracy-versus-speed front."""
    overall = averages[(averages["group"] == OVERALL) & (averages["model"] != BASELINE)]
    overall = overall[["model", "value"]].rename(columns={"value": "overall"})
    speed = reference_setting(efficiency)[["model", "tokens_per_second", "speedup", "parameters"]]
    frame = overall.merge(speed, on="model").dropna().reset_index(drop=True)
    frame["pareto"] = pareto_front(frame["tokens_per_second"], frame["overall"], maximise_x=True)
    return frame


def glance_table(tradeoff: pd.DataFrame, efficiency: pd.DataFrame) -> Table:
    """One row per model, most accurate first: overall average and its share of the best,
    parameters and their share of the largest model, speed-up, and the Pareto flag."""
    setting = describe_setting(reference_setting(efficiency).iloc[0])
    reference = largest_model(efficiency)
    table = Table(
        [
            "Model",
            "Overall average",
            "of the best",
            "Parameters",
            "of the largest",
            f"Speed-up vs {reference} ({setting})",
            "Pareto-optimal",
        ]
    )
    best, most = tradeoff["overall"].max(), tradeoff["parameters"].max()
    for _, row in tradeoff.sort_values("overall", ascending=False).iterrows():
        table.add(
            [
                Cell(row["model"]),
                Cell(
                    percent(row["overall"]), numeric=True, rank=1 if row["overall"] == best else 0
                ),
                Cell(f"{100 * row['overall'] / best:.1f}%", numeric=True),
                Cell(number(row["parameters"]), numeric=True),
                Cell(f"{100 * row['parameters'] / most:.0f}%", numeric=True),
                Cell(f"{row['speedup']:.2f}x", numeric=True),
                Cell(
                    "yes" if row["pareto"] else "no",
                    "no other model is both more accurate and faster"
                    if row["pareto"]
                    else "another model is at least as accurate and at least as fast",
                ),
            ]
        )
    return table


def headline(
    averages: pd.DataFrame, tradeoff: pd.DataFrame, efficiency: pd.DataFrame
) -> dict[str, str]:
    """Sentences answering: which model is most accurate, which is fastest and what it keeps."""
    lines = {}
    overall = averages[(averages["group"] == OVERALL) & (averages["model"] != BASELINE)].dropna(
        subset=["value"]
    )
    if not overall.empty:
        best = overall.loc[overall["value"].idxmax()]
        lines["Most accurate"] = (
            f"{best['model']}: overall average {percent(best['value'])} "
            f"(primary metric x 100 over {best['n_tasks']} tasks)"
        )
    if tradeoff.empty:
        return lines
    best = tradeoff.loc[tradeoff["overall"].idxmax()]
    fastest = tradeoff.loc[tradeoff["tokens_per_second"].idxmax()]
    setting = describe_setting(reference_setting(efficiency).iloc[0])
    if fastest["model"] == best["model"]:
        lines["Fastest"] = (
            f"{fastest['model']}, also the most accurate ({number(fastest['tokens_per_second'])} "
            f"tokens/s, {setting})"
        )
    else:
        lines["Fastest"] = (
            f"{fastest['model']}: {fastest['tokens_per_second'] / best['tokens_per_second']:.2f}x the throughput "
            f"of {best['model']} ({number(fastest['tokens_per_second'])} vs "
            f"{number(best['tokens_per_second'])} tokens/s, {setting}) with "
            f"{100 * fastest['parameters'] / best['parameters']:.0f}% of its parameters, keeping "
            f"{100 * fastest['overall'] / best['overall']:.1f}% of its overall average "
            f"({percent(fastest['overall'])} vs {percent(best['overall'])})"
        )
    smallest = tradeoff.loc[tradeoff["parameters"].idxmin()]
    lines["Smallest"] = f"{smallest['model']} ({number(smallest['parameters'])} parameters)"
    lines["Pareto-optimal"] = (
        ", ".join(tradeoff.loc[tradeoff["pareto"], "model"])
        + " (no other model is both more accurate and faster)"
    )
    return lines
