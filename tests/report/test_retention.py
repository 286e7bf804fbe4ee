"""Retention of the teacher's scores, recomputed by hand from hand-made metrics files."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from report_results import metrics_record, write_json

from biocompact.report.aggregation import BASELINE, aggregate
from biocompact.report.render import RETENTION_TEXT
from biocompact.report.retention import write_retention
from biocompact.report.tables import retention_table

PATTERN = "ft/{model}/{task}/seed{seed}/metrics.json"
# (model, task) -> F1 per seed 1..3; None: the run is missing.
F1 = {
    ("teacher", "ner-a"): [0.80, 0.82, 0.84],
    ("student", "ner-a"): [0.70, None, 0.74],
    ("teacher", "re-b"): [0.60, 0.61, 0.65],
    ("student", "re-b"): [0.62, 0.66, 0.64],
    ("other", "ner-a"): [0.40, 0.40, 0.40],
    ("zero", "re-b"): [0.0, 0.0, 0.3],
    ("student", "dc-c"): [0.5, 0.5, 0.5],
}


@pytest.fixture
def retention(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> pd.DataFrame:
    monkeypatch.chdir(tmp_path)
    for (model, task), values in F1.items():
        for seed, value in enumerate(values, start=1):
            if value is not None:
                family = task.split("-")[0]
                values = {"f1": value, "precision": 1.0}
                write_json(
                    Path(PATTERN.format(model=model, task=task, seed=seed)),
                    metrics_record(model, task, seed, family=family, primary="f1", values=values),
                )
    aggregate(
        "scores.csv",
        "summary.csv",
        "averages.csv",
        "summary.md",
        models=["teacher", "student", "other", "zero"],
        tasks=["ner-a", "re-b", "dc-c"],
        seeds=[1, 2, 3],
        metrics_pattern=PATTERN,
    )
    teachers = {"student": "teacher", "other": "teacher", "teacher": "zero"}
    table = write_retention("scores.csv", "summary.csv", teachers, "retention.csv")
    written = pd.read_csv("retention.csv", dtype=dict.fromkeys(RETENTION_TEXT, str)).fillna(
        dict.fromkeys(RETENTION_TEXT, "")
    )
    pd.testing.assert_frame_equal(written, table, check_dtype=False)
    return table.set_index(["student", "task"])


def test_per_task_retention_is_a_ratio_of_medians_with_seed_paired_spread(retention):
    ner = retention.loc[("student", "ner-a")]
    assert (ner["teacher"], ner["metric"], ner["n_seeds"]) == ("teacher", "f1", 2)
    assert ner["student_median"] == pytest.approx(0.72)  # median of 0.70 and 0.74
    assert ner["retention"] == pytest.approx(0.72 / 0.82)
    assert (ner["seed_min"], ner["seed_max"]) == pytest.approx((0.70 / 0.80, 0.74 / 0.84))
    re = retention.loc[("student", "re-b")]
    assert re["retention"] == pytest.approx(0.64 / 0.61)  # above 1: the student does better
    assert (re["seed_min"], re["seed_max"]) == pytest.approx((0.64 / 0.65, 0.66 / 0.61))
    assert re["seed_std"] == pytest.approx(pd.Series([0.62 / 0.60, 0.66 / 0.61, 0.64 / 0.65]).std())


def test_overall_retention_uses_the_tasks_both_ran_and_the_complete_seeds(retention):
    overall = retention.loc[("student", "overall")]
    assert overall["retention"] == pytest.approx(((0.72 + 0.64) / 2) / ((0.82 + 0.61) / 2))
    # seed 2 lacks the student's ner-a run: only seeds 1 and 3 pair on every task
    seed1, seed3 = (0.70 + 0.62) / (0.80 + 0.60), (0.74 + 0.64) / (0.84 + 0.65)
    assert (overall["seed_min"], overall["seed_max"], overall["n_seeds"]) == pytest.approx(
        (seed3, seed1, 2)
    )
    other = retention.loc[("other", "overall")]  # only ner-a: the teacher's re-b is left out
    assert other["retention"] == pytest.approx(0.40 / 0.82)
    assert sorted(retention.loc["other"].index) == ["ner-a", "overall"]
    assert "dc-c" not in retention.loc["student"].index  # the teacher has no dc-c result


def test_a_teacher_scoring_zero_gives_no_ratio(retention):
    re = retention.loc[("teacher", "re-b")]  # teacher "zero": median 0.0; only seed 3 scores
    assert pd.isna(re["retention"]) and re["n_seeds"] == 1
    assert re["seed_min"] == re["seed_max"] == pytest.approx(0.65 / 0.3)


def test_a_student_at_or_below_the_majority_class_is_flagged_and_left_out(tmp_path, monkeypatch):
    """The issue's GAD case: the majority class scores 0.690, the student's median 0.675 is
    below it, its teacher's 0.710 above: retention 0.675 / 0.710 = 95.1% (seeds 0.68 / 0.72 =
    94.4% to 0.67 / 0.70 = 95.7%) carries the flag, and the task is left out of the overall
    retention (on medians, without the comparisons' intervals)."""
    monkeypatch.chdir(tmp_path)
    for model, values in {"teacher": [0.70, 0.71, 0.72], "student": [0.67, 0.675, 0.68]}.items():
        for seed, value in enumerate(values, start=1):
            write_json(
                Path(PATTERN.format(model=model, task="re-b", seed=seed)),
                metrics_record(
                    model, "re-b", seed, family="re", primary="f1", values={"f1": value}
                ),
            )
    write_json(
        Path("base/re-b/metrics.json"),
        metrics_record(BASELINE, "re-b", None, family="re", primary="f1", values={"f1": 0.69}),
    )
    outputs = ("scores.csv", "summary.csv", "averages.csv", "summary.md")
    aggregate(
        *outputs,
        models=["teacher", "student"],
        tasks=["re-b"],
        seeds=[1, 2, 3],
        metrics_pattern=PATTERN,
        baseline_pattern="base/{task}/metrics.json",
    )
    table = write_retention("scores.csv", "summary.csv", {"student": "teacher"}, "r.csv")
    rows = table.set_index("task")
    task = rows.loc["re-b"]
    assert task["retention"] == pytest.approx(0.675 / 0.71)
    assert (task["baseline"], task["floor"], task["at_baseline"]) == (
        pytest.approx(0.69),
        BASELINE,
        "student",
    )
    # The task is left out of the overall retention, which has no task left.
    overall = rows.loc["overall"]
    assert pd.isna(overall["retention"]) and overall["floor_left_out"] == "re-b: student"
    read = pd.read_csv("r.csv", dtype=dict.fromkeys(RETENTION_TEXT, str)).fillna(
        dict.fromkeys(RETENTION_TEXT, "")
    )
    cells = retention_table(read).rows[0]
    assert (cells[2].text, cells[2].note) == ("95.1 % (94.4-95.7)", "student at the floor")
    assert "student at the constant floor (majority-class 69.0)" in cells[2].title
    assert cells[3].text == "–"
    assert cells[3].title == "no task left: at the constant floor: re-b: student"
