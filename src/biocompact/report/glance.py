"""The report's first screen: which model, how good, how fast, at what size.

A model whose overall average is at the constant floor (``report.floors``: not
distinguishable from, or below, the average of each task's strongest constant floor) is
marked and never named most accurate; models sharing the best average are named together as
a tie. The shares kept (of the best, of the most accurate) are ratios over the tasks where
neither model is at its floor, as retention is; the tasks left out are named.
"""

from __future__ import annotations

import pandas as pd

from biocompact.report.aggregation import OVERALL, STRONGEST_FLOOR
from biocompact.report.costs import (
    BAND_TEXT,
    describe_setting,
    largest_model,
    pair_speedup,
    reference_setting,
    speedup_cell,
)
from biocompact.report.floors import AT_FLOOR, FloorStatus, is_floor, row_verdicts
from biocompact.report.intervals import NOT_DISTINGUISHABLE, Intervals, RowIntervals, interval
from biocompact.report.tables import (
    DASH,
    Cell,
    Table,
    missing,
    number,
    percent,
    tied_ranks,
    with_intervals,
)

AT_BASELINE = AT_FLOOR


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


def baseline_overall(averages: pd.DataFrame) -> float | None:
    """The overall average of the strongest constant floors, None without one."""
    rows = averages[(averages["group"] == OVERALL) & (averages["model"] == STRONGEST_FLOOR)]
    values = rows["value"].dropna()
    return None if values.empty else float(values.iloc[0])


def above_floor(averages: pd.DataFrame, intervals: Intervals | None = None) -> dict[str, bool]:
    """Model -> whether its overall average is above the constant floor (``floors``: by the
    comparisons' interval where given, else by the point estimates); every model is without a
    floor."""
    overall = averages[averages["group"] == OVERALL].dropna(subset=["value"])
    values = dict(zip(overall["model"], overall["value"].astype(float)))
    row = intervals.row(OVERALL, "overall") if intervals is not None else None
    verdicts = row_verdicts(values, row)
    return {
        model: not (model in verdicts and verdicts[model].at_floor)
        for model in values
        if not is_floor(model)
    }


def tradeoff_frame(
    averages: pd.DataFrame, efficiency: pd.DataFrame, intervals: Intervals | None = None
) -> pd.DataFrame:
    """Per model with both: overall average (``ci_low``, ``ci_high``: its 95% interval with
    the comparisons' ``intervals``, else NaN), and at the reference setting tokens/s, the
    speed-up against the largest model (median, range, FLOP check), latency and parameters;
    ``pareto`` marks the accuracy-versus-speed front, ``above_baseline`` the models above the
    constant floor."""
    overall = averages[(averages["group"] == OVERALL) & ~averages["model"].map(is_floor)]
    overall = overall[["model", "value"]].rename(columns={"value": "overall"}).dropna()
    speed = reference_setting(efficiency)
    frame = overall.merge(speed, on="model").reset_index(drop=True)
    row = intervals.row(OVERALL, "overall") if intervals is not None else None
    bounds = [_bounds(row, m) if row is not None else (float("nan"),) * 2 for m in frame["model"]]
    frame["ci_low"] = [low for low, _ in bounds]
    frame["ci_high"] = [high for _, high in bounds]
    above = above_floor(averages, intervals)
    frame["above_baseline"] = frame["model"].map(above).fillna(True).astype(bool)
    ranked = frame[frame["above_baseline"]]
    front = pareto_front(ranked["tokens_per_second"], ranked["overall"], maximise_x=True)
    frame["pareto"] = front.reindex(frame.index, fill_value=False).astype(bool)
    return frame


def _share_of_best(
    model: str,
    value: float,
    best: tuple[str, float] | None,
    floors: FloorStatus | None = None,
) -> Cell:
    """``model``'s share of the best model's overall average (``best``: its name and value);
    with ``floors``, over the tasks where neither is at the constant floor, naming those left
    out."""
    if best is None:
        return Cell(
            DASH, f"no model is above the floor: every model is {AT_BASELINE}", numeric=True
        )
    if floors is not None:
        share, left_out = floors.share(model, best[0])
        note = f"left out, at the constant floor: {', '.join(left_out)}" if left_out else ""
        if missing(share):
            return Cell(
                DASH,
                f"no task where both are above the floor and {best[0]} scores above 0",
                numeric=True,
            )
        title = f"mean of its task scores over the mean of {best[0]}'s"
        return Cell(
            f"{100 * share:.1f}%",
            "; ".join(filter(None, [title, note])),
            note="left out: " + ", ".join(left_out) if left_out else "",
            numeric=True,
        )
    if best[1] <= 0:
        return Cell(DASH, "the best overall average is 0: no share of it", numeric=True)
    return Cell(f"{100 * value / best[1]:.1f}%", numeric=True)


def _pareto_cell(row: pd.Series) -> Cell:
    if not row["above_baseline"]:
        return Cell(DASH, f"{AT_BASELINE}: not ranked")
    if row["pareto"]:
        return Cell("yes", "no other model is both more accurate and faster")
    return Cell("no", "another model is at least as accurate and at least as fast")


def glance_table(
    tradeoff: pd.DataFrame,
    efficiency: pd.DataFrame,
    intervals: Intervals | None = None,
    floors: FloorStatus | None = None,
) -> Table:
    """One row per model, most accurate first: overall average (with the comparisons'
    ``intervals``: its 95% interval, the best in bold only when distinguishable from every
    other model, else the models it cannot tell apart marked tied) and its share of the best
    model above the baseline (without intervals, equal bests all in bold), parameters and
    their share of the largest model, the speed-up with its range and FLOP check, and the
    Pareto flag."""
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
    ranked = tradeoff[tradeoff["above_baseline"]]
    best = ranked["overall"].max() if not ranked.empty else None
    leader = (
        (str(ranked.loc[ranked["overall"].idxmax(), "model"]), float(best))
        if best is not None
        else None
    )
    most = tradeoff["parameters"].max()
    overall = intervals.row(OVERALL, "overall") if intervals is not None else None
    bests = {m: int(v == best) for m, v in zip(ranked["model"], ranked["overall"])}
    if overall is not None:
        bests, tied = tied_ranks(bests, overall.tied(), set(ranked["model"]))
    for _, row in tradeoff.sort_values("overall", ascending=False).iterrows():
        if row["above_baseline"]:
            average = Cell(percent(row["overall"]), numeric=True, rank=bests[row["model"]])
            if overall is not None:
                average.tie = row["model"] in tied
                average = with_intervals(average, row["model"], overall, average=True)
        else:
            average = Cell(
                percent(row["overall"]),
                f"{AT_BASELINE}: the average of each task's strongest constant floor"
                + (" (not distinguishable from it, or below it)" if overall is not None else ""),
                note="at the floor",
                numeric=True,
            )
        table.add(
            [
                Cell(row["model"]),
                average,
                _share_of_best(row["model"], row["overall"], leader, floors),
                Cell(number(row["parameters"]), numeric=True),
                Cell(f"{100 * row['parameters'] / most:.0f}%", numeric=True),
                speedup_cell(row),
                _pareto_cell(row),
            ]
        )
    return table


def _most_accurate(
    averages: pd.DataFrame, intervals: Intervals | None
) -> tuple[list[str], str] | None:
    """The models sharing the best overall average above the baseline, and the sentence; with
    the comparisons' ``intervals``, every model above the baseline that is not
    distinguishable from the best is named with it, never as less accurate."""
    overall = averages[(averages["group"] == OVERALL) & ~averages["model"].map(is_floor)].dropna(
        subset=["value"]
    )
    if overall.empty:
        return None
    baseline = baseline_overall(averages)
    above = above_floor(averages, intervals)
    ranked = overall[overall["model"].map(above).fillna(True).astype(bool)]
    if ranked.empty:
        assert baseline is not None  # without one every model is ranked
        return [], (
            f"none: every model is {AT_BASELINE} (the strongest floors' overall average "
            f"{percent(baseline)}), so none is ranked"
        )
    best = ranked[ranked["value"] == ranked["value"].max()]
    first = best.iloc[0]
    tasks = f"(primary metric x 100 over {first['n_tasks']} tasks)"
    if intervals is None:
        names = " and ".join(best["model"]) + (" (tie)" if len(best) > 1 else "")
        return list(best["model"]), f"{names}: overall average {percent(first['value'])} {tasks}"
    overall_intervals = intervals.row(OVERALL, "overall")
    tied = [m for m in overall_intervals.tied() if m in set(ranked["model"])] or [first["model"]]
    values = ranked.set_index("model")["value"]
    scores = ", ".join(
        f"{percent(values[m])} {interval(*_bounds(overall_intervals, m))}" for m in tied
    )
    if len(tied) == 1:
        return (
            tied,
            f"{tied[0]}: overall average {scores} {tasks}, distinguishable from every other model",
        )
    return tied, (
        f"{' and '.join(tied)} ({NOT_DISTINGUISHABLE}): overall averages {scores} {tasks}"
    )


def _bounds(row: RowIntervals, model: str) -> tuple[float, float]:
    """The 95% interval of ``model``'s value on ``row`` (NaN without one)."""
    value = row.values.get(model)
    return (float("nan"), float("nan")) if value is None else (value["ci_low"], value["ci_high"])


def _fastest(
    tradeoff: pd.DataFrame,
    efficiency: pd.DataFrame,
    best: str | None,
    floors: FloorStatus | None = None,
) -> str:
    """The fastest model at the reference setting: its speed-up over the most accurate model
    (the largest without one), how it was measured, its range and FLOP check."""
    fastest = tradeoff.loc[tradeoff["tokens_per_second"].idxmax()]
    assert isinstance(fastest, pd.Series)  # one label of a RangeIndex: one row
    reference = best or largest_model(efficiency)
    row = reference_setting(efficiency).set_index("model")
    setting = describe_setting(fastest)
    if not missing(fastest.get("threads")):
        setting += f", {fastest['threads']:.0f} thread(s)"
    if fastest["model"] == reference:
        return (
            f"{fastest['model']}, also the most accurate ({number(fastest['tokens_per_second'])} "
            f"tokens/s, {setting})"
        )
    reference_row = row.loc[reference]
    assert isinstance(reference_row, pd.Series)  # one row per model at the setting
    speedup = pair_speedup(row.loc[fastest["model"]], reference_row)
    measured = (
        f"median of {fastest['repeats']} {fastest['timing']}, range "
        f"{speedup['speedup_min']:.2f}-{speedup['speedup_max']:.2f}x"
    )
    other = (
        tradeoff.set_index("model").loc[reference] if reference in set(tradeoff["model"]) else None
    )
    assert not isinstance(other, pd.DataFrame)  # one row per model
    sentence = (
        f"{fastest['model']}: {speedup['speedup']:.2f}x the throughput of {reference} "
        f"({measured}; {number(fastest['tokens_per_second'])} vs "
        f"{number(reference_row['tokens_per_second'])} tokens/s, {setting}; FLOP ratio "
        f"{speedup['flop_ratio']:.2f}x) with "
        f"{100 * fastest['parameters'] / reference_row['parameters']:.0f}% of its parameters"
    )
    share, left_out = (
        floors.share(fastest["model"], reference) if floors is not None else (float("nan"), [])
    )
    if other is not None and floors is not None and not missing(share):
        sentence += (
            f", keeping {100 * share:.1f}% of its score (mean over the tasks where neither is "
            f"{AT_FLOOR}"
            + (f", {', '.join(left_out)} left out" if left_out else "")
            + f"; overall averages {percent(fastest['overall'])} vs {percent(other['overall'])})"
        )
    elif other is not None and floors is not None:
        sentence += (
            f"; share of its score: {DASH} (no task where both are above the constant floor "
            f"and {reference} scores above 0)"
        )
    elif other is not None and other["overall"] > 0:
        sentence += (
            f", keeping {100 * fastest['overall'] / other['overall']:.1f}% of its overall average "
            f"({percent(fastest['overall'])} vs {percent(other['overall'])})"
        )
    elif other is not None:
        sentence += f"; share of its overall average: {DASH} ({reference}'s is 0)"
    if not fastest["above_baseline"]:
        sentence += f"; {fastest['model']} is {AT_BASELINE}"
    if not speedup["plausible"]:
        sentence += (
            f". Check: the speed-up is {speedup['of_flops']:.2f}x the FLOP ratio, outside the "
            f"plausible {BAND_TEXT} (another load on the machine, or per-layer overhead)"
        )
    return sentence


def headline(
    averages: pd.DataFrame,
    tradeoff: pd.DataFrame,
    efficiency: pd.DataFrame,
    intervals: Intervals | None = None,
    floors: FloorStatus | None = None,
) -> dict[str, str]:
    """Sentences answering: which model is most accurate (with the comparisons' ``intervals``:
    the models not distinguishable from the best named together), which is fastest and what
    it keeps (with ``floors``: over the tasks where neither is at the constant floor), and
    which models are at the floor of a task."""
    lines = {}
    most_accurate = _most_accurate(averages, intervals)
    if most_accurate:
        lines["Most accurate"] = most_accurate[1]
    if floors is not None and (left_out := floors.left_out_text()):
        lines["At the constant floor"] = f"{left_out} (of retention and of the shares kept: " + (
            "not distinguishable from the task's strongest constant floor, or below it)"
            if intervals is not None
            else "median at or below the task's strongest constant floor, point estimates)"
        )
    if tradeoff.empty:
        return lines
    best = most_accurate[0][0] if most_accurate and most_accurate[0] else None
    lines["Fastest"] = _fastest(tradeoff, efficiency, best, floors)
    smallest = tradeoff.loc[tradeoff["parameters"].idxmin()]
    assert isinstance(smallest, pd.Series)  # one label of a RangeIndex: one row
    lines["Smallest"] = f"{smallest['model']} ({number(smallest['parameters'])} parameters)"
    front = tradeoff.loc[tradeoff["pareto"], "model"]
    lines["Pareto-optimal"] = (
        ", ".join(front) + " (no other model is both more accurate and faster)"
        if not front.empty
        else f"none: every model is {AT_BASELINE}"
    )
    return lines
