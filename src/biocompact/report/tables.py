"""Tables of the report: pandas in, display-ready cells out (numbers from the result files)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from biocompact.aggregation import BASELINE, OVERALL


@dataclass
class Cell:
    """One table cell: shown text, hover text, rank in its column (1 best, 2 second), a note."""

    text: str
    title: str = ""
    rank: int = 0
    note: str = ""


@dataclass
class Table:
    columns: list[str]
    rows: list[list[Cell]] = field(default_factory=list)


def missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def percent(value: float, digits: int = 1) -> str:
    """A score in [0, 1] shown as a percentage number (``0.812 -> "81.2"``)."""
    return "" if missing(value) else f"{100 * value:.{digits}f}"


def number(value: float, digits: int = 0) -> str:
    """A number with thousands separators."""
    return "" if missing(value) else f"{value:,.{digits}f}"


def frame_table(frame: pd.DataFrame, formats: dict[str, Callable[[Any], str]] | None = None) -> Table:
    """A DataFrame as a Table; columns without a format are shown with ``str``."""
    formats = formats or {}
    rows = [
        [Cell(formats.get(column, lambda v: "" if missing(v) else str(v))(value)) for column, value in row.items()]
        for _, row in frame.iterrows()
    ]
    return Table(list(frame.columns), rows)


def _ranks(values: pd.Series, models: pd.Series) -> pd.Series:
    """1 for the best, 2 for the second best value (ties share a rank); the baseline is not ranked."""
    ranked = values.where(models != BASELINE).rank(method="dense", ascending=False)
    return ranked.where(ranked <= 2).fillna(0).astype(int)


def _score_cell(row: pd.Series, rank: int) -> Cell:
    seeds = f"{row['n_seeds']}/{row['n_expected']} seeds"
    if row["n_seeds"] == 0:
        return Cell("missing", f"no result; missing seeds: {row['missing_seeds']}", note=seeds)
    spread = "" if missing(row["std"]) else f" ± {percent(row['std'])}"
    title = f"median {percent(row['median'])}; min-max {percent(row['min'])}-{percent(row['max'])}; {seeds}"
    if row["n_seeds"] < row["n_expected"]:
        title += f"; missing seeds: {row['missing_seeds']}"
    note = seeds if row["n_seeds"] < row["n_expected"] else ""
    return Cell(percent(row["median"]) + spread, title, rank, note)


def group_label(group: str) -> str:
    return "Overall" if group == OVERALL else f"{group.upper()} avg."


def results_table(summary: pd.DataFrame, averages: pd.DataFrame) -> Table:
    """Models x tasks (primary metric, median ± std over seeds), then group and overall averages."""
    primary = summary[summary["primary"]].copy()
    primary["rank"] = primary.groupby("task", sort=False)["median"].transform(
        lambda values: _ranks(values, primary.loc[values.index, "model"])
    )
    averages = averages.copy()
    averages["rank"] = averages.groupby("group", sort=False)["value"].transform(
        lambda values: _ranks(values, averages.loc[values.index, "model"])
    )
    tasks = list(dict.fromkeys(primary["task"]))
    groups = list(dict.fromkeys(averages["group"]))
    metric_of = primary.drop_duplicates("task").set_index("task")["metric"]
    table = Table(["Model", *[f"{task} ({metric_of[task] or '?'})" for task in tasks], *map(group_label, groups)])
    for model in dict.fromkeys(primary["model"]):
        scores = primary[primary["model"] == model].set_index("task")
        cells = [Cell(model)] + [_score_cell(scores.loc[task], scores.loc[task, "rank"]) for task in tasks]
        model_averages = averages[averages["model"] == model].set_index("group")
        for group in groups:
            if group not in model_averages.index:
                cells.append(Cell(""))
                continue
            average = model_averages.loc[group]
            tasks_note = f"{average['n_tasks']}/{average['n_expected_tasks']} tasks"
            partial = average["n_tasks"] < average["n_expected_tasks"]
            cells.append(Cell(percent(average["value"]) or "missing", tasks_note, average["rank"],
                              tasks_note if partial else ""))
        table.rows.append(cells)
    return table


def metrics_table(summary: pd.DataFrame) -> Table:
    """Every metric of every (model, task): median, mean, std, min, max (x 100) and seeds."""
    frame = summary[summary["metric"] != ""].copy()
    frame["seeds"] = frame["n_seeds"].astype(str) + "/" + frame["n_expected"].astype(str)
    frame["primary"] = frame["primary"].map({True: "yes", False: ""})
    columns = ["model", "task", "metric", "primary", "median", "mean", "std", "min", "max", "seeds", "missing_seeds"]
    score = {column: (lambda v: percent(v, 2)) for column in ["median", "mean", "std", "min", "max"]}
    return frame_table(frame[columns], score)


def definitions_table(summary: pd.DataFrame) -> Table:
    frame = summary[summary["metric"] != ""].drop_duplicates(["task", "metric"])
    return frame_table(frame[["task", "metric", "definition"]])


def efficiency_frame(results: Sequence[dict[str, Any]]) -> pd.DataFrame:
    """One row per (model, device, batch size, sequence length), with the speed-up against
    the largest model (most parameters) on the same setting."""
    rows = [
        {"model": result["model"], "parameters": result["parameters"]["total"],
         "non_embedding": result["parameters"]["non_embedding"], **measurement}
        for result in results
        for measurement in result["measurements"]
    ]
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    largest = frame.loc[frame["parameters"].idxmax(), "model"]
    setting = ["device", "batch_size", "sequence_length"]
    reference = frame[frame["model"] == largest].set_index(setting)["tokens_per_second"]
    frame["speedup"] = frame["tokens_per_second"].to_numpy() / reference.reindex(
        pd.MultiIndex.from_frame(frame[setting])).to_numpy()
    return frame


def reference_setting(frame: pd.DataFrame) -> pd.DataFrame:
    """The measurements on the CPU (GPU if none) with the largest batch, then the longest sequences."""
    device = "cpu" if (frame["device"] == "cpu").any() else frame["device"].iloc[0]
    rows = frame[frame["device"] == device]
    rows = rows[rows["batch_size"] == rows["batch_size"].max()]
    return rows[rows["sequence_length"] == rows["sequence_length"].max()]


def efficiency_table(frame: pd.DataFrame) -> Table:
    columns = ["model", "parameters", "non_embedding", "flops_per_token", "device", "batch_size", "sequence_length",
               "latency_ms", "sequences_per_second", "tokens_per_second", "speedup", "peak_memory_mb"]
    formats = {"parameters": number, "non_embedding": number, "flops_per_token": number,
               "latency_ms": lambda v: number(v, 2), "sequences_per_second": lambda v: number(v, 1),
               "tokens_per_second": number, "speedup": lambda v: f"{v:.2f}x", "peak_memory_mb": number}
    headers = ["model", "parameters", "non-embedding", "FLOPs/token", "device", "batch", "length", "latency (ms)",
               "sequences/s", "tokens/s", "speed-up", "peak memory (MB)"]
    table = frame_table(frame[columns], formats)
    table.columns = headers
    return table


def headline(averages: pd.DataFrame, efficiency: pd.DataFrame) -> dict[str, str]:
    """Best overall average, fastest (reference setting) and smallest model, as sentences."""
    lines = {}
    overall = averages[(averages["group"] == OVERALL) & (averages["model"] != BASELINE)].dropna(subset=["value"])
    if not overall.empty:
        best = overall.loc[overall["value"].idxmax()]
        lines["Best on average"] = f"{best['model']} (overall average {percent(best['value'])})"
    if not efficiency.empty:
        reference = reference_setting(efficiency)
        fastest = reference.loc[reference["tokens_per_second"].idxmax()]
        lines["Fastest"] = (
            f"{fastest['model']} ({number(fastest['tokens_per_second'])} tokens/s, {fastest['device']}, "
            f"batch {fastest['batch_size']}, length {fastest['sequence_length']})"
        )
        smallest = efficiency.loc[efficiency["parameters"].idxmin()]
        lines["Smallest"] = f"{smallest['model']} ({number(smallest['parameters'])} parameters)"
    return lines


def tradeoff_frame(averages: pd.DataFrame, efficiency: pd.DataFrame) -> pd.DataFrame:
    """Overall average, tokens/s (reference setting) and parameters per model."""
    overall = averages[averages["group"] == OVERALL][["model", "value"]].rename(columns={"value": "overall"})
    speed = reference_setting(efficiency)[["model", "tokens_per_second", "parameters"]]
    return overall.merge(speed, on="model").dropna()


def compute_cost_table(benchmarks: pd.DataFrame) -> Table:
    """Per stage: jobs, summed wall-clock and CPU time, the largest peak RSS."""
    cost = benchmarks.groupby("stage").agg(
        jobs=("job", "nunique"), wall_s=("s", "sum"), cpu_s=("cpu_time", "sum"), max_rss_mb=("max_rss", "max")
    ).reset_index()
    total = pd.DataFrame([{"stage": "total", "jobs": cost["jobs"].sum(), "wall_s": cost["wall_s"].sum(),
                           "cpu_s": cost["cpu_s"].sum(), "max_rss_mb": cost["max_rss_mb"].max()}])
    cost = pd.concat([cost, total], ignore_index=True) if not cost.empty else cost
    return frame_table(cost, {"wall_s": lambda v: number(v, 1), "cpu_s": lambda v: number(v, 1),
                              "max_rss_mb": lambda v: number(v, 1)})


def model_eval_table(evals: Sequence[dict[str, Any]], stages: Sequence[str]) -> Table:
    frame = pd.DataFrame(evals)
    frame.insert(0, "stage", list(stages))
    columns = ["stage", "model", "parameters", "steps", "train_tokens", "heldout_tokens", "heldout_loss", "perplexity"]
    formats = {"parameters": number, "train_tokens": number, "heldout_tokens": number, "steps": number,
               "heldout_loss": lambda v: number(v, 4), "perplexity": lambda v: number(v, 2)}
    return frame_table(frame.reindex(columns=columns), formats)


def fill_mask_table(evals: Sequence[dict[str, Any]]) -> Table:
    """One row per probe sentence and model: top predictions with their probability."""
    rows = [
        {"model": result["model"], "text": probe["text"], "answer": probe["answer"],
         "top-1 correct": "yes" if probe["predictions"][:1] and probe["predictions"][0]["token"] == probe["answer"]
         else "no",
         "predictions": ", ".join(f"{p['token']} ({p['score']:.3f})" for p in probe["predictions"])}
        for result in evals
        for probe in result.get("fill_mask", [])
    ]
    return frame_table(pd.DataFrame(rows, columns=["model", "text", "answer", "top-1 correct", "predictions"]))


def corpus_tables(stats: dict[str, Any]) -> dict[str, Table]:
    """Totals, documents per year and skipped records of the corpus."""
    totals = {key: stats.get(key) for key in ["documents", "sentences", "words", "characters"]}
    totals["files"] = len(stats.get("files", []))
    per_year = sorted(stats.get("per_year", {}).items(), key=lambda item: str(item[0]))
    skipped = sorted(stats.get("skipped", {}).items())
    return {
        "totals": frame_table(pd.DataFrame([totals]), {key: number for key in totals}),
        "per_year": frame_table(pd.DataFrame(per_year, columns=["year", "documents"]), {"documents": number}),
        "skipped": frame_table(pd.DataFrame(skipped, columns=["reason", "records"]), {"records": number}),
    }


def vocab_table(stats: Sequence[dict[str, Any]]) -> Table:
    """Each vocabulary, followed by its reference vocabulary when there is one."""
    rows = []
    for vocab in stats:
        rows.append({"vocabulary": vocab["vocab"], "type": vocab.get("type"), "vocab_size": vocab.get("vocab_size"),
                     "lowercase": vocab.get("lowercase"), "fertility": vocab.get("fertility"),
                     "unk_rate": vocab.get("unk_rate"), "heldout_words": vocab.get("heldout_words")})
        if vocab.get("reference"):
            reference = vocab["reference"]
            rows.append({"vocabulary": f"{reference['name']} (reference for {vocab['vocab']})",
                         "vocab_size": reference.get("vocab_size"), "fertility": reference.get("fertility"),
                         "unk_rate": reference.get("unk_rate")})
    frame = pd.DataFrame(rows, columns=["vocabulary", "type", "vocab_size", "lowercase", "fertility", "unk_rate",
                                        "heldout_words"])
    return frame_table(frame, {"vocab_size": number, "heldout_words": number, "fertility": lambda v: number(v, 3),
                               "unk_rate": lambda v: "" if missing(v) else f"{100 * v:.3f}%"})
