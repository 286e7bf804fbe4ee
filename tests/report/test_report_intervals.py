"""The report says only what the intervals allow: a row's best is bold only when it is
distinguishable from the others, averages and retention carry their intervals, and the
headline names the models it cannot tell apart together."""

from __future__ import annotations

import re
from pathlib import Path

import lxml.html
import pandas as pd
import pytest
from finetuning_tasks import parsed_task
from report_results import report_of_study, settings, write_re_run

from biocompact.report.aggregation import BASELINE, OVERALL
from biocompact.report.comparisons import VERSUS_BEST
from biocompact.report.glance import headline
from biocompact.report.intervals import Intervals

GOLD = ["1", "0"] * 20  # 40 examples
# Examples each model gets wrong, per task: on re-close a (2 wrong) and b (3 wrong, a's 2
# among them) differ by one example; on re-far a is right everywhere, b wrong on 20.
WRONG = {
    ("a", "re-close"): {0, 1},
    ("b", "re-close"): {0, 1, 2},
    ("c", "re-close"): set(range(16)),
    ("a", "re-far"): set(),
    ("b", "re-far"): set(range(20)),
    ("c", "re-far"): set(range(10)),
}


def flipped(wrong: set[int]) -> list[str]:
    return [("0" if g == "1" else "1") if i in wrong else g for i, g in enumerate(GOLD)]


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory, repo_root: Path) -> lxml.html.HtmlElement:
    root = tmp_path_factory.mktemp("intervals")
    models, tasks, seeds = ["a", "b", "c"], ["re-close", "re-far"], [1, 2]
    for (model, task), wrong in WRONG.items():
        for seed in seeds:
            write_re_run(root, model, seed, GOLD, flipped(wrong), task)
    for task in tasks:
        write_re_run(root, BASELINE, None, GOLD, ["1"] * 40, task)
    teachers = {"b": "a"}
    entries = {
        task: parsed_task(
            name=task, family="re", format="biobert_tsv", metric="accuracy"
        ).as_entry()
        for task in tasks
    }
    study = settings(root, models, entries, seeds, teachers=teachers)
    return lxml.html.fromstring(report_of_study(study, root, repo_root))


def cells(tree: lxml.html.HtmlElement, table: str, first: str) -> list:
    rows = {row[0].text_content(): list(row) for row in tree.get_element_by_id(table).iter("tr")}
    return rows[first][1:]


def test_a_best_not_distinguishable_from_the_second_is_tied_not_bold(tree):
    a, b, c, _ = cells(tree, "results-table", "re-close (accuracy)")
    for cell in (a, b):
        assert "(tied)" in cell.text_content() and not cell.xpath(".//b|.//u")
    assert "not distinguishable, 95%" in b.get("title")
    # One example apart on 40: -2.5 points, its interval includes 0.
    assert re.search(
        r"b - a: -2\.5 points, 95% interval \[-?\d+\.\d, [+-]\d+\.\d\]", b.get("title")
    )
    assert "(tied)" not in c.text_content() and not c.xpath(".//b|.//u")
    assert re.search(r"c - a: -35\.0 points, .*, distinguishable", c.get("title"))


def test_a_distinguishable_best_is_bold_and_the_second_underlined(tree):
    a, b, c, baseline = cells(tree, "results-table", "re-far (accuracy)")
    assert a.xpath(".//b") and "(tied)" not in a.text_content()
    assert c.xpath(".//u") and not b.xpath(".//b|.//u")  # 75.0 second, b's 50.0 at the baseline
    assert "95% interval over test-unit resamples [100.0, 100.0]" in a.get("title")
    assert not baseline.xpath(".//b|.//u")


def test_averages_and_retention_carry_their_intervals(tree):
    overall = cells(tree, "results-table", "Overall average")
    # a: (95.0 + 100.0) / 2 = 97.5, with its interval.
    assert re.fullmatch(
        r"97\.5 \[\d+\.\d, \d+\.\d\]( \(tied\))?", overall[0].text_content().strip()
    )
    retention = cells(tree, "retention-table", "b")[1:]
    # re-close: 92.5 / 95.0 = 97.4 %; re-far: 50 / 100, the student at the floor (flagged),
    # left out of the overall, which is re-close's alone and says so.
    assert re.fullmatch(r"97\.4 % \[\d+\.\d, \d+\.\d\]", retention[0].text_content())
    assert re.fullmatch(
        r"50\.0 % \[\d+\.\d, \d+\.\d\] \(student at the floor\)", retention[1].text_content()
    )
    assert re.fullmatch(
        r"97\.4 % \[\d+\.\d, \d+\.\d\] \(left out: re-far: student\)",
        retention[2].text_content(),
    )
    assert "b - a: -2.5 points" in retention[0].get("title")


def test_the_headline_never_calls_a_model_more_accurate_within_the_interval(tree):
    terms = tree.xpath("//dl[@class='headline']/dt")
    lines = {dt.text_content(): dt.getnext().text_content() for dt in terms}
    # Overall a 97.5, b 71.25, c 67.5: a distinguishable from both.
    assert re.fullmatch(
        r"a: overall average 97\.5 \[\d+\.\d, \d+\.\d\] \(primary metric x 100 over 2 tasks\), "
        r"distinguishable from every other model",
        lines["Most accurate"],
    )


def test_models_not_distinguishable_from_the_best_are_named_together():
    """x 80.0 and y 79.0 cannot be told apart (interval of y - x [-3.0, 1.0]); z can."""
    averages = pd.DataFrame(
        [
            {"model": m, "group": OVERALL, "value": v, "n_tasks": 2, "n_expected_tasks": 2}
            for m, v in (("x", 0.80), ("y", 0.79), ("z", 0.60), (BASELINE, 0.30))
        ]
    )
    comparisons = pd.DataFrame(
        [
            {
                "row": OVERALL,
                "level": "overall",
                "kind": VERSUS_BEST,
                "model": model,
                "reference": "x",
                "distinguishable": distinguishable,
            }
            for model, distinguishable in (("y", False), ("z", True))
        ]
    )
    values = pd.DataFrame(
        [
            {"model": m, "row": OVERALL, "level": "overall", "ci_low": low, "ci_high": high}
            for m, low, high in (("x", 0.78, 0.82), ("y", 0.76, 0.81), ("z", 0.55, 0.65))
        ]
    )
    lines = headline(averages, pd.DataFrame(), pd.DataFrame(), Intervals(comparisons, values))
    assert lines["Most accurate"] == (
        "x and y (not distinguishable, 95%): overall averages 80.0 [78.0, 82.0], "
        "79.0 [76.0, 81.0] (primary metric x 100 over 2 tasks)"
    )
