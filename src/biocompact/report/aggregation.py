"""Aggregate fine-tuning results over seeds: long scores, per-metric summary, averages.

Every expected (model, task, seed) run appears in the outputs: a metrics file that is
absent or unreadable gives rows with ``status = missing`` and no value. A run scored on part
of a split (``max_test_examples``...) says so in its ``subsample`` column. The
majority-class baselines are one more model (``majority-class``, no seed).

Averages: for each model, the median over seeds of the primary metric of every task
is averaged (plain mean) over the tasks of a family (``ner``, ``re``, ...); the
``overall`` average is, by the configured method, the mean over all tasks (``tasks``,
Bioformer's Table 3: group averages weighted by their number of tasks) or the mean of
the group averages (``groups``, every family weighs the same). Tasks without a single
successful run are left out of the means and counted in ``n_expected_tasks`` only.

The constant floors (``records.metrics.FLOOR_MODELS``) are models of their own, without a
seed: the majority class of every task, and all-positive where the baseline rule wrote one
(``floors_pattern``'s folder holds it).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from biocompact.files.atomic import atomic_open
from biocompact.finetuning.baseline import floor_outputs
from biocompact.records.metrics import FLOOR_MODELS, MAJORITY_CLASS, MetricsRecord

BASELINE = MAJORITY_CLASS
# On a task, the constant floor with the highest median primary score; on an average, the
# average of those (a model of averages.csv and intervals.csv, not of summary.csv).
STRONGEST_FLOOR = "strongest constant floor"
OVERALL = "overall"
GROUP_FORMULA = (
    "average(model, group) = mean over the tasks t of the group of "
    "median over seeds s of primary_metric(model, t, s)"
)
AVERAGE_FORMULAS = {
    "tasks": GROUP_FORMULA + "; overall(model) = mean over all tasks t of median over seeds of "
    "primary_metric(model, t, s) = sum over groups g of n_g * average(model, g) / sum over g of n_g, "
    "n_g = number of tasks of group g (Bioformer, Table 3: (8 NER + 4 RE + 2 DC + 1 QA) / 15)",
    "groups": GROUP_FORMULA + "; overall(model) = mean over the groups g of average(model, g) "
    "(every task family weighs the same, whatever its number of tasks)",
}
BLURB = "blurb"
BLURB_TYPES = ("ner", "pico", "relation", "similarity", "classification", "qa")
BLURB_FORMULA = (
    "BLURB score(model) = mean over BLURB's six task types T (named entity recognition, PICO, "
    "relation extraction, sentence similarity, document classification, question answering) "
    "of the mean over the tasks t of type T of median over seeds s of primary_metric(model, t, "
    "s) (Gu et al. 2021, BLURB); missing unless every type has a task with a result"
)
SCORE_COLUMNS = ["model", "task", "seed", "metric", "value", "status", "subsample"]
STAT_COLUMNS = ["median", "mean", "std", "min", "max"]
AVERAGE_COLUMNS = ["model", "group", "value", "n_tasks", "n_expected_tasks", "method"]


@dataclass(frozen=True)
class Run:
    """One expected result file."""

    model: str
    task: str
    seed: int | None
    path: Path


def floor_files(
    task: str, baseline_pattern: str, floors_pattern: str = "", predictions_pattern: str = ""
) -> dict[str, tuple[Path, Path | None]]:
    """Every constant floor the baseline rule wrote for ``task`` -> its (metrics.json,
    predictions) files: the majority class always (its predictions where
    ``predictions_pattern`` is given), each other floor found in ``floors_pattern``'s folder."""
    files: dict[str, tuple[Path, Path | None]] = {
        MAJORITY_CLASS: (
            Path(baseline_pattern.format(task=task)),
            Path(predictions_pattern.format(task=task)) if predictions_pattern else None,
        )
    }
    if floors_pattern:
        for floor in FLOOR_MODELS[1:]:
            paths = floor_outputs(floors_pattern.format(task=task), floor)
            if Path(paths["metrics"]).exists():
                files[floor] = (Path(paths["metrics"]), Path(paths["predictions"]))
    return files


def expected_runs(
    models: Sequence[str],
    tasks: Sequence[str],
    seeds: Sequence[int],
    metrics_pattern: str,
    baseline_pattern: str | None = None,
    floors_pattern: str = "",
) -> list[Run]:
    """The (model, task, seed) grid, plus one run per constant floor of each task when a
    baseline pattern is given (``floor_files``).

    Patterns are ``str.format`` templates with ``{model}``, ``{task}`` and ``{seed}``.
    """
    runs = [
        Run(model, task, int(seed), Path(metrics_pattern.format(model=model, task=task, seed=seed)))
        for model, task, seed in itertools.product(models, tasks, seeds)
    ]
    if baseline_pattern:
        runs += [
            Run(floor, task, None, metrics)
            for task in tasks
            for floor, (metrics, _) in floor_files(task, baseline_pattern, floors_pattern).items()
        ]
    return runs


def _read_metrics(path: Path) -> MetricsRecord | None:
    """The run's record, or None when its file is absent or unreadable."""
    try:
        return MetricsRecord.read(path)
    except (OSError, ValueError):
        return None


def load_scores(runs: Iterable[Run]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Read every run; return the long scores table and the per-(task, metric) info.

    The info table has ``task, metric, family, primary, definition``. Rows for a missing
    run repeat the metrics known for its task (one row with an empty metric when none is).
    """
    runs = list(runs)
    loaded = {run: _read_metrics(run.path) for run in runs}
    info: dict[tuple[str, str], dict] = {}
    for run, data in loaded.items():
        if data is None:
            continue
        for metric in data.metrics:
            entry = info.setdefault(
                (run.task, metric),
                {
                    "family": data.family,
                    "primary": metric == data.primary_metric,
                    "definition": None,
                },
            )
            entry["definition"] = entry["definition"] or data.definitions.get(metric)
    task_metrics = {
        task: [metric for (t, metric) in info if t == task]
        for task in dict.fromkeys(r.task for r in runs)
    }
    rows: list[tuple[str, str, int | None, str, float | None, str, str]] = []
    for run, data in loaded.items():
        if data is None:
            for metric in task_metrics[run.task] or [""]:
                rows.append((run.model, run.task, run.seed, metric, None, "missing", ""))
        else:
            subsample = data.subsample_text()
            for metric, value in data.metrics.items():
                rows.append((run.model, run.task, run.seed, metric, value, "ok", subsample))
    scores = pd.DataFrame(rows, columns=SCORE_COLUMNS)
    scores["seed"] = scores["seed"].astype("Int64")
    scores["value"] = pd.to_numeric(scores["value"], errors="coerce").astype(float)
    info_table = pd.DataFrame(
        [{"task": task, "metric": metric, **entry} for (task, metric), entry in info.items()],
        columns=["task", "metric", "family", "primary", "definition"],
    )
    return scores, info_table


def summarise(scores: pd.DataFrame, info: pd.DataFrame) -> pd.DataFrame:
    """Per (model, task, metric): median, mean, sample std, min, max over the ok seeds.

    ``n_seeds`` counts the seeds with a value, ``n_expected`` the expected runs,
    ``missing_seeds`` lists the seeds whose run is missing (``;``-separated; ``-`` for a
    missing run without a seed, i.e. a baseline) and ``subsample`` the splits its runs used
    only part of (``MetricsRecord.subsample_text``).
    """
    expected = scores.groupby(["model", "task"], sort=False)["seed"].apply(
        lambda seeds: len(seeds.drop_duplicates()) if seeds.notna().any() else 1
    )
    missing = (
        scores[scores["status"] == "missing"]
        .groupby(["model", "task"], sort=False)["seed"]
        .apply(lambda seeds: ";".join(str(s) for s in seeds.dropna().drop_duplicates()) or "-")
    )
    grouped = scores.groupby(["model", "task", "metric"], sort=False)["value"]
    summary = grouped.agg(
        median="median",
        mean="mean",
        std=lambda v: v.std(ddof=1),
        min="min",
        max="max",
        n_seeds="count",
    ).reset_index()
    keys = pd.MultiIndex.from_frame(summary[["model", "task"]])
    summary["n_expected"] = expected.reindex(keys).to_numpy()
    summary["missing_seeds"] = missing.astype(object).reindex(keys).fillna("").to_numpy()
    subsample = scores.groupby(["model", "task"], sort=False)["subsample"].apply(
        lambda texts: " | ".join(text for text in texts.drop_duplicates() if text)
    )
    summary["subsample"] = subsample.reindex(keys).fillna("").to_numpy()
    summary = summary.merge(info, on=["task", "metric"], how="left")
    # A task without any result has one row with an empty metric: it stands for the primary one.
    summary["primary"] = summary["primary"].eq(True) | (summary["metric"] == "")
    columns = [
        "model",
        "task",
        "family",
        "metric",
        "primary",
        *STAT_COLUMNS,
        "n_seeds",
        "n_expected",
    ]
    return summary[columns + ["missing_seeds", "definition", "subsample"]]


def group_averages(summary: pd.DataFrame, method: str = "tasks") -> pd.DataFrame:
    """Mean of the per-task medians of the primary metric per model and task family, and
    the overall average by ``method`` (a key of ``AVERAGE_FORMULAS``, recorded per row)."""
    if method not in AVERAGE_FORMULAS:
        raise ValueError(f"average method {method!r}: expected one of {sorted(AVERAGE_FORMULAS)}")
    primary = summary[summary["primary"]]
    families = list(dict.fromkeys(primary["family"].dropna()))
    rows = []
    for model, table in primary.groupby("model", sort=False):
        model_rows = []
        for family in families:
            members = table[table["family"] == family]
            medians = members["median"].dropna()
            if not members.empty:
                model_rows.append(
                    {
                        "group": family,
                        "value": medians.mean() if len(medians) else float("nan"),
                        "n_tasks": len(medians),
                        "n_expected_tasks": members["task"].nunique(),
                    }
                )
        medians = table["median"].dropna()
        if method == "tasks":
            overall = medians.mean() if len(medians) else float("nan")
        else:
            overall = pd.Series([row["value"] for row in model_rows], dtype=float).mean()
        model_rows.append(
            {
                "group": OVERALL,
                "value": overall,
                "n_tasks": len(medians),
                "n_expected_tasks": table["task"].nunique(),
            }
        )
        rows += [{"model": model, **row, "method": method} for row in model_rows]
    return pd.DataFrame(rows, columns=AVERAGE_COLUMNS)


def blurb_scores(
    summary: pd.DataFrame, blurb_types: Mapping[str, str], method: str = "tasks"
) -> pd.DataFrame:
    """The BLURB score per model (rows of the averages table, group ``blurb``) over the tasks
    of ``blurb_types`` (task -> BLURB task type); empty when no task has a type."""
    unknown = set(blurb_types.values()) - set(BLURB_TYPES)
    if unknown:
        raise ValueError(f"BLURB task types {sorted(unknown)}: expected some of {BLURB_TYPES}")
    primary = summary[summary["primary"] & summary["task"].isin(list(blurb_types))]
    rows = []
    for model, table in primary.groupby("model", sort=False):
        medians = table.dropna(subset=["median"])
        type_means = medians.groupby(medians["task"].map(blurb_types))["median"].mean()
        complete = set(type_means.index) == set(BLURB_TYPES)
        rows.append(
            {
                "model": model,
                "group": BLURB,
                "value": type_means.mean() if complete else float("nan"),
                "n_tasks": len(medians),
                "n_expected_tasks": table["task"].nunique(),
                "method": method,
            }
        )
    return pd.DataFrame(rows, columns=AVERAGE_COLUMNS)


def strongest_floor_rows(summary: pd.DataFrame) -> pd.DataFrame:
    """Per task, the primary-metric summary row of its constant floor with the highest median
    (ties: the first of ``FLOOR_MODELS``), as model ``STRONGEST_FLOOR``: what the averages'
    floor averages."""
    floors = summary[summary["primary"] & summary["model"].isin(FLOOR_MODELS)].dropna(
        subset=["median"]
    )
    order = floors["model"].map({floor: i for i, floor in enumerate(FLOOR_MODELS)})
    floors = floors.assign(order=order).sort_values(["median", "order"], ascending=[False, True])
    strongest = floors.drop_duplicates("task").drop(columns="order")
    strongest = strongest.set_index("task").reindex(list(dict.fromkeys(floors["task"])))
    return strongest.reset_index()[summary.columns].assign(model=STRONGEST_FLOOR)


def summary_markdown(summary: pd.DataFrame, averages: pd.DataFrame, method: str = "tasks") -> str:
    """The summary as Markdown: primary-metric medians, averages (with formula), all metrics."""
    primary = summary[summary["primary"]].copy()
    primary["cell"] = [
        f"{median:.4f} ({n}/{expected})" if n else f"missing (0/{expected})"
        for median, n, expected in zip(primary["median"], primary["n_seeds"], primary["n_expected"])
    ]
    models = list(dict.fromkeys(summary["model"]))
    tasks = list(dict.fromkeys(summary["task"]))
    medians = primary.pivot(index="model", columns="task", values="cell").reindex(
        index=models, columns=tasks
    )
    groups = list(dict.fromkeys(averages["group"]))
    average_table = averages.pivot(index="model", columns="group", values="value").reindex(
        index=models, columns=groups
    )
    full = summary.drop(columns=["definition"])
    return (
        "\n\n".join(
            [
                "# Fine-tuning summary",
                "## Primary metric: median over seeds (seeds with a result / expected)",
                medians.to_markdown(),
                "## Averages",
                f"Formula (`{method}`): {AVERAGE_FORMULAS[method]}."
                + (f" {BLURB_FORMULA}." if (averages["group"] == BLURB).any() else ""),
                average_table.to_markdown(floatfmt=".4f"),
                "## All metrics",
                full.to_markdown(index=False, floatfmt=".4f"),
            ]
        )
        + "\n"
    )


def aggregate(
    scores: str | Path,
    summary: str | Path,
    averages: str | Path,
    markdown: str | Path,
    *,
    models: Sequence[str],
    tasks: Sequence[str],
    seeds: Sequence[int],
    metrics_pattern: str,
    baseline_pattern: str | None = None,
    floors_pattern: str = "",
    average: str = "tasks",
    blurb_types: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Read the expected runs; write the scores, summary and averages CSVs and the Markdown summary.

    ``average`` is the overall-average method (a key of ``AVERAGE_FORMULAS``); the BLURB
    score is added to the averages over the tasks of ``blurb_types`` (task -> BLURB type).
    The averages also hold the ``STRONGEST_FLOOR``'s (``strongest_floor_rows``).
    """
    score_table, info = load_scores(
        expected_runs(models, tasks, seeds, metrics_pattern, baseline_pattern, floors_pattern)
    )
    summary_table = summarise(score_table, info)
    with_floor = pd.concat([summary_table, strongest_floor_rows(summary_table)], ignore_index=True)
    average_table = group_averages(with_floor, average)
    if blurb_types:
        blurb = blurb_scores(with_floor, blurb_types, average)
        average_table = pd.concat([average_table, blurb], ignore_index=True)
    for table, path in [(score_table, scores), (summary_table, summary), (average_table, averages)]:
        with atomic_open(path) as handle:
            table.to_csv(handle, index=False)
    with atomic_open(markdown) as handle:
        handle.write(summary_markdown(summary_table, average_table, average))
    return summary_table
