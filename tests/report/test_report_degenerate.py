"""Degenerate results in the report, from hand-made result files: models at the constant
floor (here, without intervals: at or below the majority-class baseline) are marked and never
ranked, ties are named as ties, a value that does
not exist is a dash with its reason (never NaN or inf), an implausible speed-up is flagged."""

from __future__ import annotations

import re
from pathlib import Path

import lxml.html
import pytest
from report_results import efficiency_result, metrics, write_json

from biocompact.report.aggregation import BASELINE, aggregate
from biocompact.report.render import build_report
from biocompact.report.retention import write_retention

PATTERN = "results/finetuning/{model}/{task}/seed{seed}/metrics.json"
BASELINE_PATTERN = "results/baselines/{task}/metrics.json"
TASKS = ["ner-x", "re-y"]
SEEDS = [1, 2]


def build(
    root: Path,
    scores: dict[tuple[str, str], list[float]],
    baselines: dict[str, float],
    latencies: dict[str, tuple[int, list[float]]],
    teachers: dict[str, str],
    repo_root: Path,
) -> tuple[str, lxml.html.HtmlElement]:
    """The report of these F1 scores per seed, baselines, (layer parameters, latencies) per
    model and students' teachers; its HTML and parsed tree."""
    results = root / "results"
    models = list(dict.fromkeys(model for model, _ in scores))
    for (model, task), values in scores.items():
        for seed, value in zip(SEEDS, values):
            write_json(
                root / PATTERN.format(model=model, task=task, seed=seed),
                metrics(model, task, seed, value),
            )
    for task, value in baselines.items():
        write_json(root / BASELINE_PATTERN.format(task=task), metrics(BASELINE, task, None, value))
    summary = results / "aggregate"
    aggregate(
        summary / "scores.csv",
        summary / "summary.csv",
        summary / "averages.csv",
        summary / "summary.md",
        models=models,
        tasks=TASKS,
        seeds=SEEDS,
        metrics_pattern=str(root / PATTERN),
        baseline_pattern=str(root / BASELINE_PATTERN),
    )
    write_retention(
        summary / "scores.csv", summary / "summary.csv", teachers, summary / "retention.csv"
    )
    efficiency = []
    for model, (layer_parameters, runs) in latencies.items():
        efficiency.append(results / f"efficiency/{model}.json")
        write_json(
            efficiency[-1],
            efficiency_result(
                model,
                layer_parameters=layer_parameters,
                latencies_ms=runs,
                batch_size=1,
                flops_per_token=2 * layer_parameters,
                weights_mb=1.0,
                layers=2,
                peak_activations_mb=100.0,
                compared_with=[],
            ),
        )
    output = results / "report/report.html"
    build_report(
        output,
        repo_root / "workflow/report/report.html.j2",
        summary=summary / "summary.csv",
        scores=summary / "scores.csv",
        averages=summary / "averages.csv",
        efficiency=efficiency,
        retention=summary / "retention.csv",
        benchmarks=results / "benchmarks",
        source_dir=repo_root,
    )
    html = output.read_text(encoding="utf-8")
    return html, lxml.html.fromstring(html)


def headline(tree: lxml.html.HtmlElement) -> dict[str, str]:
    terms = tree.xpath("//dl[@class='headline']/dt")
    return {dt.text_content(): dt.getnext().text_content() for dt in terms}


def rows(tree: lxml.html.HtmlElement, table_id: str) -> dict[str, list[lxml.html.HtmlElement]]:
    table = tree.get_element_by_id(table_id)
    return {row[0].text_content(): list(row) for row in table.iter("tr")}


def assert_no_nan_or_inf(tree: lxml.html.HtmlElement) -> None:
    """Neither the text nor any hover title of the page says nan or inf."""
    texts = [tree.text_content()] + tree.xpath("//@title")
    for text in texts:
        assert not re.search(r"\b(nan|inf|infinity)\b", text, re.IGNORECASE), text


@pytest.fixture(scope="module")
def all_zero(tmp_path_factory: pytest.TempPathFactory, repo_root: Path):
    """Every model at 0 on every task, as is the baseline; the student's teacher scores 0."""
    scores = {(model, task): [0.0, 0.0] for model in ("teacher", "student") for task in TASKS}
    return build(
        tmp_path_factory.mktemp("zero"),
        scores,
        {task: 0.0 for task in TASKS},
        {"teacher": (2000, [10.0, 10.0, 10.0]), "student": (1000, [5.0, 5.0, 5.0])},
        {"student": "teacher"},
        repo_root,
    )


def test_all_at_baseline_names_no_model_and_prints_no_nan(all_zero):
    html, tree = all_zero
    lines = headline(tree)
    assert lines["Most accurate"] == (
        "none: every model is at the constant floor (the strongest floors' overall average "
        "0.0), so none is ranked"
    )
    # Both models at the floor on both tasks: named, left out of the shares.
    assert lines["At the constant floor"].startswith(
        "ner-x: 2 models at the constant floor left out (teacher, student); "
        "re-y: 2 models at the constant floor left out (teacher, student) (of retention and "
        "of the shares kept: median at or below"
    )
    # The fastest is compared with the largest model; no task left for a share.
    assert "student: 2.00x the throughput of teacher" in lines["Fastest"]
    assert (
        "share of its score: – (no task where both are above the constant floor and teacher "
        "scores above 0)" in lines["Fastest"]
    )
    assert "keeping" not in lines["Fastest"]
    assert lines["Fastest"].endswith("; student is at the constant floor")
    assert lines["Pareto-optimal"] == "none: every model is at the constant floor"
    glance = rows(tree, "glance-table")
    for model in ("teacher", "student"):
        average, share = glance[model][1], glance[model][2]
        assert average.text_content().strip() == "0.0 (at the floor)"
        assert not average.xpath(".//b")
        assert share.text_content() == "–" and "no model is above the floor" in share.get("title")
        pareto = glance[model][6]  # not on a Pareto front
        assert pareto.text_content() == "–" and "not ranked" in pareto.get("title")
    results = rows(tree, "results-table")
    for cell in results["ner-x (f1)"][1:3]:
        assert "≤ majority-class" in cell.text_content() and not cell.xpath(".//b|.//u")
        assert (
            "at the constant floor (majority-class 0.0; median at or below it (point estimates: "
            "no intervals)): not ranked" in cell.get("title")
        )
    for cell in results["Overall average"][1:3]:
        assert "≤ strongest constant floor" in cell.text_content()
        assert "at the constant floor (strongest constant floor 0.0;" in cell.get("title")
    retention = rows(tree, "retention-table")["student"]
    assert [cell.text_content() for cell in retention[2:]] == ["–", "–", "–"]
    assert retention[2].get("title") == "no ratio: the teacher's median is 0.0 (student 0.0)"
    assert retention[4].get("title") == (
        "no task left: at the constant floor: ner-x: student and teacher; re-y: student and teacher"
    )
    assert_no_nan_or_inf(tree)


@pytest.fixture(scope="module")
def ties(tmp_path_factory: pytest.TempPathFactory, repo_root: Path):
    """a and b tie on every task; c equals the baseline on re-y and is above it on ner-x;
    c is 40x faster than a at half its FLOPs."""
    scores = {
        ("a", "ner-x"): [0.80, 0.80],
        ("b", "ner-x"): [0.80, 0.80],
        ("c", "ner-x"): [0.30, 0.30],
        ("a", "re-y"): [0.60, 0.60],
        ("b", "re-y"): [0.60, 0.60],
        ("c", "re-y"): [0.40, 0.40],
    }
    return build(
        tmp_path_factory.mktemp("ties"),
        scores,
        {"ner-x": 0.0, "re-y": 0.40},
        {
            "a": (2000, [400.0, 360.0, 380.0]),
            "b": (1800, [380.0, 380.0, 380.0]),
            "c": (1000, [10.0, 9.0, 9.5]),
        },
        {},
        repo_root,
    )


def test_ties_are_named_and_ranked_together(ties):
    _, tree = ties
    assert headline(tree)["Most accurate"] == (
        "a and b (tie): overall average 70.0 (primary metric x 100 over 2 tasks)"
    )
    results = rows(tree, "results-table")
    a, b, c, baseline = results["ner-x (f1)"][1:]
    assert a.xpath(".//b") and b.xpath(".//b")  # both best
    assert c.xpath(".//u") and not baseline.xpath(".//b|.//u")  # c second, above 0.0
    glance = rows(tree, "glance-table")
    assert glance["a"][1].xpath(".//b") and glance["b"][1].xpath(".//b")
    assert_no_nan_or_inf(tree)


def test_a_model_at_the_floor_is_marked_and_not_ranked(ties):
    _, tree = ties
    c = rows(tree, "results-table")["re-y (f1)"][3]
    assert c.text_content().strip() == "40.0 ± 0.0 (≤ majority-class)"
    assert not c.xpath(".//b|.//u")
    assert "at the constant floor (majority-class 40.0; median at or below it" in c.get("title")
    # Overall: c's (0.30 + 0.40) / 2 = 35.0 is above the baseline's (0.0 + 0.40) / 2 = 20.0.
    overall = rows(tree, "results-table")["Overall average"][3]
    assert overall.text_content().strip() == "35.0" and overall.xpath(".//u")


def test_an_implausible_speed_up_is_flagged(ties):
    _, tree = ties
    # c over a per round: 400 / 10, 360 / 9, 380 / 9.5 = 40 each; FLOPs 4,000 / 2,000 = 2;
    # 40 / 2 = 20x the FLOP ratio, outside 0.5-1.5x. a is the most accurate (first of the tie).
    fastest = headline(tree)["Fastest"]
    assert fastest.startswith(
        "c: 40.00x the throughput of a (median of 3 interleaved rounds, range 40.00-40.00x; "
    )
    assert "FLOP ratio 2.00x" in fastest
    assert fastest.endswith(
        "Check: the speed-up is 20.00x the FLOP ratio, outside the plausible 0.5-1.5x the FLOP "
        "ratio (another load on the machine, or per-layer overhead)"
    )
    speed = {
        row[0].text_content(): row for row in tree.get_element_by_id("efficiency-table").iter("tr")
    }
    assert speed["c"][9].text_content() == "40.00x (40.00-40.00) (check: 20.00x the FLOP ratio)"
    # b: per round 400 / 380, 360 / 380, 380 / 380 -> median 1.00 against a FLOP ratio of 1.11.
    assert speed["b"][9].text_content() == "1.00x (0.95-1.05)"
