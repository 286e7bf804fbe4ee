"""A model is at the constant floor when the paired-bootstrap interval of its difference from
the task's strongest floor includes 0 (or it is below it): its cell is marked with the floor
and the interval, it is not ranked, and it is left out of retention and of the headline's
shares; a model whose interval excludes 0 is ranked. On result files written here with
hand-known scores."""

from __future__ import annotations

import re
from pathlib import Path

import lxml.html
import pandas as pd
import pytest
from finetuning_tasks import parsed_task
from report_results import report_of_study, settings, write_re_run

from biocompact.records.metrics import ALL_POSITIVE, MAJORITY_CLASS
from biocompact.report import plots
from biocompact.report.aggregation import OVERALL, STRONGEST_FLOOR
from biocompact.report.comparisons import STUDENT_TEACHER, VERSUS_BASELINE

# 40 test examples, 24 positive (p = 0.6): all-positive binary F1 = 2 x 0.6 / 1.6 = 0.75; the
# majority class (0 here) scores 0.
GOLD = ["1"] * 24 + ["0"] * 16
ALL_POSITIVE_F1 = 2 * 0.6 / 1.6
# "near" predicts 1 everywhere but on one negative: TP 24, FP 15, F1 = 48 / 63 = 0.762, above
# the floor's 0.75 by one example: a resample without that example (about 36% of them) gives
# a difference of 0, so the interval includes 0. "far" is right everywhere (F1 1.0).
NEAR = ["1"] * 24 + ["0"] + ["1"] * 15
# On "other", near misses two positives (TP 22, FN 2, F1 = 44 / 46), far is right everywhere.
NEAR_OTHER = ["0"] * 2 + ["1"] * 22 + ["0"] * 16
TASKS = ["gad", "other"]
SEEDS = [1, 2]


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory, repo_root: Path):
    root = tmp_path_factory.mktemp("floors")
    predictions = {("near", "gad"): NEAR, ("far", "gad"): GOLD}
    predictions |= {("near", "other"): NEAR_OTHER, ("far", "other"): GOLD}
    for (model, task), predicted in predictions.items():
        for seed in SEEDS:
            write_re_run(root, model, seed, GOLD, predicted, task, primary="binary_f1")
    for task in TASKS:
        write_re_run(root, MAJORITY_CLASS, None, GOLD, ["0"] * 40, task, primary="binary_f1")
        write_re_run(root, ALL_POSITIVE, None, GOLD, ["1"] * 40, task, primary="binary_f1")
    teachers = {"near": "far"}
    entries = {
        task: parsed_task(name=task, family="re", format="biobert_tsv").as_entry() for task in TASKS
    }
    study = settings(root, ["near", "far"], entries, SEEDS, teachers=teachers)
    html = report_of_study(study, root, repo_root)
    return root, pd.read_csv(root / "comparisons.csv"), lxml.html.fromstring(html)


def versus_floor(table: pd.DataFrame, model: str, task: str) -> pd.Series:
    level = "overall" if task == OVERALL else "task"
    return table[
        (table["kind"] == VERSUS_BASELINE)
        & (table["model"] == model)
        & (table["row"] == task)
        & (table["level"] == level)
    ].iloc[0]


def cells(tree: lxml.html.HtmlElement, table: str, first: str) -> list:
    rows = {row[0].text_content(): list(row) for row in tree.get_element_by_id(table).iter("tr")}
    return rows[first][1:]


def test_the_floors_are_read_as_models_and_the_strongest_is_the_reference(study):
    root, table, _ = study
    summary = pd.read_csv(root / "summary.csv")
    primary = summary[summary["primary"]].set_index(["model", "task"])["median"]
    assert primary[(ALL_POSITIVE, "gad")] == pytest.approx(ALL_POSITIVE_F1)
    assert primary[(MAJORITY_CLASS, "gad")] == 0.0
    near = versus_floor(table, "near", "gad")
    assert near["reference"] == ALL_POSITIVE
    assert near["difference"] == pytest.approx(48 / 63 - ALL_POSITIVE_F1)
    # The averages' floor: the mean of each task's strongest floor.
    averages = pd.read_csv(root / "averages.csv").set_index(["model", "group"])["value"]
    assert averages[(STRONGEST_FLOOR, OVERALL)] == pytest.approx(ALL_POSITIVE_F1)
    assert versus_floor(table, "near", OVERALL)["reference"] == STRONGEST_FLOOR


def test_a_median_above_the_floor_with_an_interval_including_0_is_at_the_floor(study):
    _, table, tree = study
    near = versus_floor(table, "near", "gad")
    assert near["difference"] > 0 and near["ci_low"] <= 0 <= near["ci_high"]
    assert near["at_floor"]
    # far's interval excludes 0: ranked, bold.
    far = versus_floor(table, "far", "gad")
    assert far["ci_low"] > 0 and not far["at_floor"]
    near_cell, far_cell, majority, positive = cells(tree, "results-table", "gad (binary_f1)")
    assert re.fullmatch(
        r"76\.2 ± 0\.0 \(≈ all-positive \[\+0\.0, \+\d\.\d\]\)", near_cell.text_content().strip()
    )
    assert not near_cell.xpath(".//b|.//u")
    assert re.search(
        r"at the constant floor \(all-positive 75\.0; near - all-positive: \+1\.2 points, 95% "
        r"interval \[\+0\.0, \+\d\.\d\], p = [\d.]+.*\): not ranked",
        near_cell.get("title"),
    )
    assert far_cell.xpath(".//b") and "floor" not in far_cell.text_content()
    assert not majority.xpath(".//b|.//u") and not positive.xpath(".//b|.//u")
    # On "other" both are above the floor (intervals excluding 0) and ranked, tied with each
    # other (two examples apart).
    assert versus_floor(table, "near", "other")["ci_low"] > 0
    assert not versus_floor(table, "near", "other")["at_floor"]
    for cell in cells(tree, "results-table", "other (binary_f1)")[:2]:
        assert cell.text_content().endswith("(tied)") and "floor" not in cell.text_content()


def test_a_task_at_the_floor_is_left_out_of_retention_and_the_headline_says_so(study):
    _, table, tree = study
    overall = table[(table["kind"] == STUDENT_TEACHER) & (table["level"] == "overall")].iloc[0]
    # Only "other" is left: near 44 / 46 over far's 1.0.
    assert overall["retention"] == pytest.approx(44 / 46)
    assert overall["floor_left_out"] == "gad: student"
    retention = cells(tree, "retention-table", "near")[1:]
    assert retention[0].text_content().endswith("(student at the floor)")
    assert re.fullmatch(
        r"95\.7 % \[\d+\.\d, \d+\.\d\] \(left out: gad: student\)", retention[2].text_content()
    )
    terms = tree.xpath("//dl[@class='headline']/dt")
    lines = {dt.text_content(): dt.getnext().text_content() for dt in terms}
    assert lines["At the constant floor"].startswith(
        "gad: near at the constant floor left out (of retention and of the shares kept: not "
        "distinguishable from the task's strongest constant floor, or below it)"
    )


def test_the_seed_plot_draws_the_floor_and_the_pareto_plot_its_intervals(study):
    root, _, _ = study
    summary = pd.read_csv(root / "summary.csv")
    svg = plots.seed_spread(pd.read_csv(root / "scores.csv"), summary)
    assert "all-positive 75.0" in svg  # the legend of the floor's line
    frame = pd.DataFrame(
        {
            "model": ["a", "b"],
            "overall": [0.8, 0.7],
            "ci_low": [0.75, 0.6],
            "ci_high": [0.85, 0.8],
            "parameters": [100, 50],
            "pareto": [True, True],
        }
    )
    assert "Pareto front on the point estimates" in plots.tradeoff(frame, "parameters", "p")
    points = frame.drop(columns=["ci_low", "ci_high"])
    assert "point estimates (no intervals)" in plots.tradeoff(points, "parameters", "p")
