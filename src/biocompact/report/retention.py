"""Retention: each distilled student's fine-tuning score as a share of its teacher's.

The papers' headline (Rohanian et al. 2023; Sanh et al. 2019: "retains 97% of BERT's
performance") is a ratio of scores. Per task, on the primary metric:

- ``retention`` = median over seeds of the student / median over seeds of the teacher;
- the seed spread: the ratios of the runs that share a fine-tuning seed,
  student(t, s) / teacher(t, s), by their ``seed_min``, ``seed_max`` and ``seed_std``.

A teacher whose score is 0 gives no ratio (NaN retention, no such seed in the spread).
``baseline`` is the score of the task's strongest constant floor, ``floor`` its name
(``records.metrics.FLOOR_MODELS``: the majority class, all-positive where it applies), and
``at_baseline`` names the models, student and/or teacher, whose median is at or below it
(point estimates; the report, with the comparisons' intervals, also flags a model not
distinguishable from it): a ratio of two scores that a constant prediction reaches says
nothing of distillation.

Overall (``task = overall``): the mean over tasks of the student's medians / the same mean of
the teacher's, over the tasks where both have a result and neither is at the floor (the
others named in ``floor_left_out``, ``task: who``; ``baseline``: the floors' mean over the
tasks kept); its seed spread pairs seeds again, mean over tasks of student(t, s) / mean over
tasks of teacher(t, s), over the seeds s that both ran on every one of those tasks.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from biocompact.files.atomic import atomic_open
from biocompact.records.metrics import FLOOR_MODELS
from biocompact.report.aggregation import OVERALL

RETENTION_COLUMNS = [
    "student",
    "teacher",
    "task",
    "metric",
    "student_median",
    "teacher_median",
    "retention",
    "seed_min",
    "seed_max",
    "seed_std",
    "n_seeds",
    "baseline",
    "floor",
    "at_baseline",
    "floor_left_out",
]
RETENTION_FORMULA = (
    "retention(student, task) = median over seeds of the student's primary metric / median over "
    "seeds of its teacher's; seed spread: student(task, s) / teacher(task, s) over the seeds s "
    "both ran; overall: mean over tasks of the student's medians / mean over the same tasks of the "
    "teacher's, seed spread from the per-seed means, the tasks where the student or the teacher "
    "is at the strongest constant floor left out"
)


def _primary_scores(scores: pd.DataFrame, summary: pd.DataFrame) -> pd.DataFrame:
    """The ok runs' primary-metric values: model, task, metric, seed, value."""
    is_primary = summary["primary"] & (summary["metric"] != "")
    primary = summary.loc[is_primary, ["task", "metric"]].drop_duplicates()
    ok = scores[(scores["status"] == "ok") & scores["value"].notna()]
    return ok.merge(primary, on=["task", "metric"])[["model", "task", "metric", "seed", "value"]]


def _row(
    student: str,
    teacher: str,
    task: str,
    metric: str,
    pair: pd.DataFrame,
    *,
    student_median: float,
    teacher_median: float,
    baseline: float,
    floor: str = "",
    left_out: str = "",
) -> dict:
    scored = pair[pair["teacher"] > 0]  # a teacher scoring 0 leaves no ratio
    ratios = scored["student"] / scored["teacher"]
    at_baseline = [
        name
        for name, median in (("student", student_median), ("teacher", teacher_median))
        if median <= baseline  # False without a baseline (NaN)
    ]
    return {
        "student": student,
        "teacher": teacher,
        "task": task,
        "metric": metric,
        "student_median": student_median,
        "teacher_median": teacher_median,
        "retention": student_median / teacher_median if teacher_median else float("nan"),
        "seed_min": ratios.min(),
        "seed_max": ratios.max(),
        "seed_std": ratios.std(ddof=1),
        "n_seeds": len(ratios),
        "baseline": baseline,
        "floor": floor,
        "at_baseline": ", ".join(at_baseline),
        "floor_left_out": left_out,
    }


def retention_table(
    scores: pd.DataFrame, summary: pd.DataFrame, teachers: Mapping[str, str]
) -> pd.DataFrame:
    """Per student (``teachers``: student -> teacher) and task, then overall: see the module."""
    values = _primary_scores(scores, summary)
    floors = values[values["model"].isin(FLOOR_MODELS)]
    strongest = floors.sort_values(
        "model", key=lambda names: names.map(FLOOR_MODELS.index)
    ).sort_values("value", ascending=False, kind="stable")
    strongest = strongest.drop_duplicates("task").set_index("task")
    baselines, floor_names = strongest["value"], strongest["model"]
    rows = []
    for student, teacher in teachers.items():
        paired = (
            values[values["model"] == student]
            .merge(
                values[values["model"] == teacher],
                on=["task", "metric", "seed"],
                suffixes=("_s", "_t"),
            )
            .rename(columns={"value_s": "student", "value_t": "teacher"})
        )
        medians, left_out = {}, {}
        for (task, metric), pair in paired.groupby(["task", "metric"], sort=False):
            student_median = values.query("model == @student and task == @task")["value"].median()
            teacher_median = values.query("model == @teacher and task == @task")["value"].median()
            baseline = baselines.get(task, float("nan"))
            row = _row(
                student,
                teacher,
                str(task),
                str(metric),
                pair,
                student_median=student_median,
                teacher_median=teacher_median,
                baseline=baseline,
                floor=str(floor_names.get(task, "")),
            )
            rows.append(row)
            if row["at_baseline"]:
                left_out[task] = row["at_baseline"].replace(", ", " and ")
            else:
                medians[task] = (student_median, teacher_median)
        if medians or left_out:
            paired = paired[paired["task"].isin(list(medians))]
            complete = paired.groupby("seed")["task"].transform("nunique") == len(medians)
            per_seed = paired[complete].groupby("seed")[["student", "teacher"]].mean()
            kept = max(len(medians), 1)
            student_mean = sum(s for s, _ in medians.values()) / kept if medians else float("nan")
            teacher_mean = sum(t for _, t in medians.values()) / kept if medians else float("nan")
            baseline_mean = baselines.reindex(list(medians)).mean(skipna=False)
            rows.append(
                _row(
                    student,
                    teacher,
                    OVERALL,
                    "primary",
                    per_seed,
                    student_median=student_mean,
                    teacher_median=teacher_mean,
                    baseline=baseline_mean,
                    left_out="; ".join(f"{task}: {who}" for task, who in left_out.items()),
                )
            )
    return pd.DataFrame(rows, columns=RETENTION_COLUMNS)


def write_retention(
    scores: str | Path, summary: str | Path, teachers: Mapping[str, str], output: str | Path
) -> pd.DataFrame:
    """Read the aggregation's ``scores.csv`` and ``summary.csv``; write ``retention.csv``."""
    summary_table = pd.read_csv(summary, dtype={"metric": str}).fillna({"metric": ""})
    table = retention_table(pd.read_csv(scores), summary_table, teachers)
    with atomic_open(output) as handle:
        table.to_csv(handle, index=False)
    return table
