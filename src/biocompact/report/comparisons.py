"""Every comparison with its interval: paired bootstrap over test units, Almost Stochastic
Order over seeds, Holm's correction over the tasks of a study.

For each task, one set of resamples of its test units (sentences for NER, abstracts for
multi-label classification, questions for question answering, else examples; drawn within
each fold of a cross-validated task) serves every model, so that each comparison is paired:
both models are scored on the same units. On each resample a run's primary metric is
recomputed from per-unit sufficient statistics (``finetuning.unit_statistics``: entity-level
F1 from the resample's counts), a cross-validated run's is the median over its folds, and a
model's is the median over the seeds it ran, as the reported score is; that reported score
(the median over seeds of the runs' ``metrics.json``) is the point estimate, and every run's
statistic on the full test set must equal its ``metrics.json`` value. Family, overall and
BLURB averages are recomputed per resample from the task scores with ``aggregation``'s
formulas (the tasks' resamples are independent, as their test sets are).

A difference ``model - reference`` has the 2.5th and 97.5th percentiles of its resampled
values as its 95% interval and the two-sided bootstrap p-value
``min(1, 2 (1 + min(#{d* <= 0}, #{d* >= 0})) / (B + 1))`` (the smallest level at which the
percentile interval excludes 0). Holm's step-down correction (Holm 1979, "A Simple
Sequentially Rejective Multiple Test Procedure") adjusts the p-values of one model and kind
of comparison over the tasks of the study. Two models are *distinguishable* when the
interval excludes 0 and the adjusted p-value is below 0.05. The second view over seeds is
Almost Stochastic Order (Dror et al. 2019, "Deep Dominance - How to Properly Compare Deep
Neural Models"; deepsig's ``aso``): the minimal violation ratio ``eps_min`` of the leader
(the higher score) over the other model's per-seed scores, below 0.5 when the leader's
seeds almost stochastically dominate (Dror et al. advise 0.2 for a strict reading).

The constant floors (``records.metrics.FLOOR_MODELS``: the majority class, all-positive where
it applies) are scored like the models. Every model is compared with the strongest floor of
each row (``model - baseline``, its ``reference`` the floor): on a task the floor with the
highest score, on an average the ``STRONGEST_FLOOR``, the average of those. A model is *at
the floor* (``at_floor``) when it is not distinguishable from it (the rule of a bold best)
or falls below it; the overall retention leaves out the tasks where the student or the
teacher is at the floor (``floor_left_out``).
"""

from __future__ import annotations

import warnings
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from biocompact.files.atomic import atomic_open
from biocompact.finetuning.predictions import FoldPredictions
from biocompact.finetuning.tasks import get_family
from biocompact.finetuning.unit_statistics import ComparedRuns
from biocompact.records.metrics import FLOOR_MODELS, MetricsRecord
from biocompact.report.aggregation import (
    BLURB,
    BLURB_TYPES,
    OVERALL,
    STRONGEST_FLOOR,
    floor_files,
)
from biocompact.report.settings import ComparisonStudy
from biocompact.taskfiles.settings import FinetuningTask

CONFIDENCE = 0.95
ALPHA = 1 - CONFIDENCE
TOLERANCE = 1e-6  # predictions files keep 6 decimals of a score or probability
STUDENT_TEACHER = "student - teacher"
VERSUS_BEST = "model - best"
VERSUS_BASELINE = "model - baseline"
COMPARISON_COLUMNS = [
    "row",
    "level",
    "kind",
    "model",
    "reference",
    "metric",
    "model_value",
    "reference_value",
    "difference",
    "ci_low",
    "ci_high",
    "p_value",
    "p_holm",
    "holm_tests",
    "distinguishable",
    "at_floor",
    "floor_left_out",
    "aso_leader",
    "aso_eps_min",
    "retention",
    "retention_low",
    "retention_high",
    "unit",
    "n_units",
    "resamples",
]
INTERVAL_COLUMNS = ["model", "row", "level", "value", "ci_low", "ci_high", "n_seeds", "resamples"]


@dataclass
class Score:
    """A model's score on one row: the reported value, its resampled values and, on a task
    row, the per-seed values (ASO's input)."""

    value: float
    resampled: np.ndarray
    seeds: tuple[float, ...] = ()


@dataclass
class TaskScores:
    """Every model's score on one task and what was resampled."""

    task: str
    family: str
    metric: str
    unit: str
    n_units: int
    scores: dict[str, Score]


def task_rng(seed: int, task: str) -> np.random.Generator:
    """The resampling generator of ``task``: its resamples do not change when other tasks are
    added to a study."""
    return np.random.default_rng([seed, zlib.crc32(task.encode("utf-8"))])


def unit_weights(n_units: int, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """(resamples, n_units): how often each unit is drawn in each resample of ``n_units``
    drawn with replacement."""
    return rng.multinomial(n_units, np.full(n_units, 1 / n_units), size=resamples).astype(float)


def percentile_interval(values: np.ndarray) -> tuple[float, float]:
    """The 95% percentile interval of resampled values (NaN when any is undefined)."""
    if not np.isfinite(values).all():
        return float("nan"), float("nan")
    low, high = np.quantile(values, [ALPHA / 2, 1 - ALPHA / 2])
    return float(low), float(high)


def bootstrap_p_value(differences: np.ndarray) -> float:
    """Two-sided p-value of resampled differences against 0 (see the module)."""
    below, above = int((differences <= 0).sum()), int((differences >= 0).sum())
    return min(1.0, 2 * (1 + min(below, above)) / (len(differences) + 1))


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given.

    Written out (a few lines) rather than adding statsmodels for ``multipletests(method="holm")``,
    which gives the same values: the i-th smallest of m p-values is multiplied by m - i + 1,
    the running maximum keeps the adjusted values in the order of the raw ones, capped at 1."""
    order = np.argsort(p_values, kind="stable")
    adjusted = np.empty(len(order))
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, (len(order) - rank) * p_values[index])
        adjusted[index] = min(1.0, running)
    return adjusted.tolist()


def _fold_value(record: MetricsRecord, fold: str | None, metric: str) -> float:
    metrics = record.metrics if fold is None else (record.folds or {})[fold].metrics
    return float(metrics[metric])


def _check_same_units(first: tuple[Path, list], other: tuple[Path, list]) -> None:
    """Two runs of a task must hold the same folds, units and gold values."""
    (first_path, first_folds), (path, folds) = first, other
    same = [f.fold for f in first_folds] == [f.fold for f in folds] and all(
        a.units == b.units and a.gold == b.gold for a, b in zip(first_folds, folds)
    )
    if not same:
        raise ValueError(
            f"{path} and {first_path} do not hold the same test units with the same gold "
            "labels: their scores cannot be compared unit by unit"
        )


def _resampled_items(fold: FoldPredictions, weights: np.ndarray, compute) -> np.ndarray:
    """The metric ``compute(gold, predicted)`` on each resample's items (the slow path)."""
    order = list(dict.fromkeys(fold.units))
    items: dict[str, list[int]] = {unit: [] for unit in order}
    for index, unit in enumerate(fold.units):
        items[unit].append(index)
    values = []
    for row in weights.astype(int):
        chosen = [i for unit, times in zip(order, row) for _ in range(times) for i in items[unit]]
        values.append(compute([fold.gold[i] for i in chosen], [fold.predicted[i] for i in chosen]))
    return np.asarray(values, dtype=float)


def score_task(
    task: FinetuningTask,
    runs: Mapping[str, Sequence[tuple[Path, Path]]],
    resamples: int,
    seed: int,
) -> TaskScores:
    """Every model's score on ``task`` (its data alone) with its resampled values.
    ``runs``: model -> the (metrics.json, predictions) files of each of its seeds."""
    task_family = get_family(task.family, task.format)
    records = {
        model: [
            (MetricsRecord.read(metrics), task_family.read_predictions(predictions), predictions)
            for metrics, predictions in files
        ]
        for model, files in runs.items()
    }
    all_runs = [(path, folds) for model_runs in records.values() for _, folds, path in model_runs]
    for other in all_runs[1:]:
        _check_same_units(all_runs[0], other)
    first_record = next(iter(records.values()))[0][0]
    family, metric = first_record.family, first_record.primary_metric
    reference_folds = all_runs[0][1]
    statistic = task_family.unit_statistic(
        metric,
        ComparedRuns(
            sorted(set(first_record.labels)),
            [f for _, f in all_runs],
            task.negative_label,
            task.positive_labels,
        ),
    )
    rng = task_rng(seed, task.name)
    weights = [unit_weights(len(dict.fromkeys(f.units)), resamples, rng) for f in reference_folds]
    scores = {}
    for model, model_runs in records.items():
        seed_values, seed_vectors = [], []
        for record, folds, path in model_runs:
            fold_vectors = []
            for fold, fold_weights in zip(folds, weights):
                expected = _fold_value(record, fold.fold, metric)
                if statistic is None:
                    compute = task_family.item_metric(metric, record.labels)
                    full = compute(fold.gold, fold.predicted)
                    fold_vectors.append(_resampled_items(fold, fold_weights, compute))
                else:
                    _, sums = statistic.unit_sums(fold.units, fold.gold, fold.predicted)
                    full = float(statistic.value(sums.sum(axis=0)))
                    fold_vectors.append(statistic.value(fold_weights @ sums))
                if abs(full - expected) > TOLERANCE:
                    raise ValueError(
                        f"{path}: its predictions give {metric} {full:.6f}, its metrics file "
                        f"{expected:.6f}"
                    )
            seed_values.append(float(record.metrics[metric]))
            seed_vectors.append(np.median(fold_vectors, axis=0))
        scores[model] = Score(
            float(np.median(seed_values)), np.median(seed_vectors, axis=0), tuple(seed_values)
        )
    n_units = sum(len(dict.fromkeys(f.units)) for f in reference_folds)
    return TaskScores(
        task.name, family, metric, task_family.resampled_unit(metric), n_units, scores
    )


def group_scores(
    tasks: Sequence[TaskScores], method: str, blurb_types: Mapping[str, str]
) -> dict[tuple[str, str], dict[str, Score]]:
    """(row, level) -> model -> Score of the family averages, the overall average by
    ``method`` (``tasks`` or ``groups``) and the BLURB score, as ``aggregation`` defines them,
    recomputed on every resample."""
    models = list(dict.fromkeys(m for task in tasks for m in task.scores))
    families = list(dict.fromkeys(task.family for task in tasks))
    rows: dict[tuple[str, str], dict[str, Score]] = {}

    def mean(scores: Sequence[Score]) -> Score:
        return Score(
            float(np.mean([s.value for s in scores])), np.mean([s.resampled for s in scores], 0)
        )

    for model in models:
        by_family = {}
        for family in families:
            members = [t.scores[model] for t in tasks if t.family == family and model in t.scores]
            if members:
                by_family[family] = mean(members)
                rows.setdefault((family, "family"), {})[model] = by_family[family]
        every = [t.scores[model] for t in tasks if model in t.scores]
        overall = mean(every) if method == "tasks" else mean(list(by_family.values()))
        rows.setdefault((OVERALL, "overall"), {})[model] = overall
        by_type: dict[str, list[Score]] = {}
        for task in tasks:
            if task.task in blurb_types and model in task.scores:
                by_type.setdefault(blurb_types[task.task], []).append(task.scores[model])
        if set(by_type) == set(BLURB_TYPES):
            rows.setdefault((BLURB, "blurb"), {})[model] = mean([mean(s) for s in by_type.values()])
    return rows


def _difference(model: Score, reference: Score) -> dict[str, float]:
    differences = model.resampled - reference.resampled
    low, high = percentile_interval(differences)
    return {
        "model_value": model.value,
        "reference_value": reference.value,
        "difference": model.value - reference.value,
        "ci_low": low,
        "ci_high": high,
        "p_value": bootstrap_p_value(differences),
    }


def _retention(student: Score, teacher: Score) -> dict[str, float]:
    """Student / teacher with the percentile interval of the resampled ratios."""
    if teacher.value <= 0 or (teacher.resampled <= 0).any():
        return {
            "retention": float("nan"),
            "retention_low": float("nan"),
            "retention_high": float("nan"),
        }
    low, high = percentile_interval(student.resampled / teacher.resampled)
    return {
        "retention": student.value / teacher.value,
        "retention_low": low,
        "retention_high": high,
    }


def is_floor(model: str) -> bool:
    """Whether ``model`` is a constant floor (or the average of the strongest ones)."""
    return model in FLOOR_MODELS or model == STRONGEST_FLOOR


def strongest_floor(scores: Mapping[str, Score]) -> str | None:
    """The row's floor that models are compared with: ``STRONGEST_FLOOR`` on an average,
    else the constant floor with the highest score (ties: the first of ``FLOOR_MODELS``);
    None without a floor."""
    if STRONGEST_FLOOR in scores:
        return STRONGEST_FLOOR
    floors = [floor for floor in FLOOR_MODELS if floor in scores]
    return max(floors, key=lambda floor: scores[floor].value) if floors else None


def with_strongest_floor(tasks: Sequence[TaskScores]) -> list[TaskScores]:
    """``tasks`` with, beside their floors, the ``STRONGEST_FLOOR``: each task's strongest
    floor, whose averages the averages' floor is (tasks without a floor unchanged)."""
    augmented = []
    for task in tasks:
        floor = strongest_floor(task.scores)
        scores = dict(task.scores)
        if floor is not None:
            scores[STRONGEST_FLOOR] = task.scores[floor]
        augmented.append(replace(task, scores=scores))
    return augmented


def row_comparisons(
    row: str, level: str, scores: Mapping[str, Score], teachers: Mapping[str, str]
) -> list[dict[str, Any]]:
    """The comparisons of one row: every model against the best (the highest score among the
    models, the floors left out; ties: the first), every student against its teacher and
    every model against the row's strongest constant floor."""
    models = [m for m in scores if not is_floor(m)]
    pairs = []
    if models:
        best = max(models, key=lambda m: scores[m].value)
        pairs += [(VERSUS_BEST, m, best) for m in models if m != best]
    pairs += [(STUDENT_TEACHER, s, t) for s, t in teachers.items() if s in scores and t in scores]
    floor = strongest_floor(scores)
    if floor is not None:
        pairs += [(VERSUS_BASELINE, m, floor) for m in models]
    rows = []
    for kind, model, reference in pairs:
        entry: dict[str, Any] = {
            "row": row,
            "level": level,
            "kind": kind,
            "model": model,
            "reference": reference,
        }
        entry.update(_difference(scores[model], scores[reference]))
        if kind == STUDENT_TEACHER and level in ("task", "overall"):
            entry.update(_retention(scores[model], scores[reference]))
        rows.append(entry)
    return rows


def _overall_retention(
    tasks: Sequence[TaskScores], student: str, teacher: str, left_out: Sequence[str] = ()
) -> dict:
    """Retention over the tasks both ran but ``left_out``, as ``biocompact.report.retention``
    defines it: the mean of the student's task scores over the mean of the teacher's, on every
    resample."""
    both = [
        t for t in tasks if student in t.scores and teacher in t.scores and t.task not in left_out
    ]
    if not both:
        return _retention(Score(0.0, np.zeros(1)), Score(0.0, np.zeros(1)))
    total = [
        Score(
            sum(t.scores[m].value for t in both),
            np.sum([t.scores[m].resampled for t in both], axis=0),
        )
        for m in (student, teacher)
    ]
    return _retention(*total)


def _add_holm(table: pd.DataFrame) -> pd.DataFrame:
    """Holm's adjusted p-values over the task rows of each (kind, model); a group row's own."""
    table["p_holm"] = table["p_value"]
    table["holm_tests"] = 1
    tasks = table["level"] == "task"
    for _, family in table[tasks].groupby(["kind", "model"], sort=False):
        table.loc[family.index, "p_holm"] = holm(family["p_value"].tolist())
        table.loc[family.index, "holm_tests"] = len(family)
    outside = (table["ci_low"] > 0) | (table["ci_high"] < 0)
    table["distinguishable"] = outside & (table["p_holm"] < ALPHA)
    versus_floor = table["kind"] == VERSUS_BASELINE
    at_floor = (table["difference"] <= 0) | ~table["distinguishable"]
    table["at_floor"] = [bool(at) if floor else None for at, floor in zip(at_floor, versus_floor)]
    return table


def at_floor_tasks(table: pd.DataFrame) -> dict[str, list[str]]:
    """Model -> the tasks where it is at its strongest constant floor."""
    rows = table[
        (table["kind"] == VERSUS_BASELINE) & (table["level"] == "task") & table["at_floor"].eq(True)
    ]
    return {
        str(model): [str(task) for task in group["row"]]
        for model, group in rows.groupby("model", sort=False)
    }


def _floor_free_retention(table: pd.DataFrame, tasks: Sequence[TaskScores]) -> pd.DataFrame:
    """Each overall retention over the tasks where neither the student nor the teacher is at
    its floor; ``floor_left_out`` names the others (``task: who``)."""
    at_floor = at_floor_tasks(table)
    table["floor_left_out"] = ""
    overall = (table["kind"] == STUDENT_TEACHER) & (table["level"] == "overall")
    for index, row in table[overall].iterrows():
        student, teacher = row["model"], row["reference"]
        who = {
            task.task: [
                name
                for name, model in (("student", student), ("teacher", teacher))
                if task.task in at_floor.get(model, [])
            ]
            for task in tasks
        }
        left_out = {task: " and ".join(names) for task, names in who.items() if names}
        retention = _overall_retention(tasks, student, teacher, list(left_out))
        for key, value in retention.items():
            table.loc[index, key] = value
        table.loc[index, "floor_left_out"] = "; ".join(
            f"{task}: {names}" for task, names in left_out.items()
        )
    return table


def _add_aso(
    table: pd.DataFrame, tasks: Mapping[str, TaskScores], seed: int, threads: int
) -> pd.DataFrame:
    """ASO's eps_min of the leader over the other model's per-seed scores, for task rows
    where both models ran at least two seeds; its confidence level Bonferroni-corrected by
    deepsig over the comparison's Holm family."""
    from deepsig import aso  # imports torch when installed: loaded by this job alone

    table["aso_leader"], table["aso_eps_min"] = "", float("nan")
    done: dict[tuple, tuple[str, float]] = {}
    for index, row in table[table["level"] == "task"].iterrows():
        scores = tasks[row["row"]].scores
        model, reference = scores[row["model"]], scores[row["reference"]]
        if min(len(model.seeds), len(reference.seeds)) < 2:
            continue
        leader, other = (
            (row["model"], row["reference"])
            if row["difference"] >= 0
            else (row["reference"], row["model"])
        )
        key = (row["row"], leader, other, int(row["holm_tests"]))
        if key not in done:
            with warnings.catch_warnings():  # equal score distributions: ratio 0.5, warned
                warnings.simplefilter("ignore", UserWarning)
                eps = aso(
                    list(scores[leader].seeds),
                    list(scores[other].seeds),
                    confidence_level=CONFIDENCE,
                    num_comparisons=int(row["holm_tests"]),
                    num_jobs=threads,
                    show_progress=False,
                    seed=seed,
                )
            done[key] = (leader, float(eps))
        table.loc[index, ["aso_leader", "aso_eps_min"]] = done[key]
    return table


def compare(
    tasks: Sequence[TaskScores],
    teachers: Mapping[str, str],
    *,
    method: str,
    blurb_types: Mapping[str, str],
    resamples: int,
    seed: int,
    threads: int = 1,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The comparisons table and every model's score intervals (see the module)."""
    rows: dict[tuple[str, str], Mapping[str, Score]] = {
        (task.task, "task"): task.scores for task in tasks
    }
    rows.update(group_scores(with_strongest_floor(tasks), method, blurb_types))
    by_task = {task.task: task for task in tasks}
    comparisons, intervals = [], []
    for (row, level), scores in rows.items():
        for entry in row_comparisons(row, level, scores, teachers):
            task = by_task.get(row) if level == "task" else None
            entry["metric"] = task.metric if task else "primary"
            if entry["kind"] == STUDENT_TEACHER and level == "overall":
                entry.update(_overall_retention(tasks, entry["model"], entry["reference"]))
            entry["unit"] = task.unit if task else "tasks"
            entry["n_units"] = task.n_units if task else len(tasks)
            comparisons.append(entry)
        for model, score in scores.items():
            low, high = percentile_interval(score.resampled)
            intervals.append(
                {
                    "model": model,
                    "row": row,
                    "level": level,
                    "value": score.value,
                    "ci_low": low,
                    "ci_high": high,
                    "n_seeds": len(score.seeds) if level == "task" else None,
                }
            )
    table = pd.DataFrame(comparisons)
    if table.empty:
        table = pd.DataFrame(columns=COMPARISON_COLUMNS)
    else:
        table = _add_aso(_floor_free_retention(_add_holm(table), tasks), by_task, seed, threads)
    table["resamples"] = resamples
    interval_table = pd.DataFrame(intervals, columns=INTERVAL_COLUMNS[:-1])
    # a whole number, or empty on an average's row (float64 would write 5 as 5.0)
    interval_table["n_seeds"] = interval_table["n_seeds"].astype("Int64")
    interval_table["resamples"] = resamples
    return table.reindex(columns=COMPARISON_COLUMNS), interval_table


def run_comparisons(
    study: ComparisonStudy, *, outputs: Mapping[str, str | Path], threads: int = 1
) -> pd.DataFrame:
    """Score every task of ``study``; write ``outputs["comparisons"]`` and
    ``outputs["intervals"]`` (CSV). Rule comparisons runs it with its params
    (``report.rules.comparisons``), ``benchmarks/bootstrap_study.py`` with its own."""
    tasks = []
    for task in study.tasks.values():
        name = task.name
        runs = {
            model: [
                (
                    Path(study.metrics_pattern.format(model=model, task=name, seed=seed)),
                    Path(study.predictions_pattern.format(model=model, task=name, seed=seed)),
                )
                for seed in study.seeds
            ]
            for model in study.models
        }
        floors = floor_files(
            name,
            study.baseline_metrics_pattern,
            study.floors_pattern,
            study.baseline_predictions_pattern,
        )
        for floor, (metrics, predictions) in floors.items():
            assert predictions is not None  # a predictions pattern was given
            runs[floor] = [(metrics, predictions)]
        tasks.append(score_task(task, runs, study.resamples, study.seed))
    comparisons, intervals = compare(
        tasks,
        study.teachers,
        method=study.average,
        blurb_types=study.blurb_types,
        resamples=study.resamples,
        seed=study.seed,
        threads=threads,
    )
    for table, key in ((comparisons, "comparisons"), (intervals, "intervals")):
        with atomic_open(outputs[key]) as handle:
            table.to_csv(handle, index=False)
    return comparisons
