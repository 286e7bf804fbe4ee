"""The report's tables are the medians of the metrics files: every cell of the results and
all-metrics tables recomputed from fine-tuning metrics files with random scores."""

from __future__ import annotations

import json
import random
import statistics

import lxml.html
import pytest
from report_results import metrics_record

from biocompact.report.aggregation import BASELINE, aggregate
from biocompact.report.render import build_report

PATTERN = "results/finetuning/{model}/{task}/seed{seed}/metrics.json"
BASELINE_PATTERN = "results/baselines/{task}/metrics.json"
MODELS = ["large", "medium", "small"]
TASKS = {"ner-a": ("ner", "f1"), "re-b": ("re", "binary_f1"), "dc-c": ("dc", "micro_f1")}
SEEDS = [1, 2, 3, 4, 5]
MISSING = {("small", "re-b", 2), ("medium", "dc-c", 4), ("medium", "dc-c", 5)}


def _record(model: str, task: str, seed: int | None, rng: random.Random) -> dict:
    family, primary = TASKS[task]
    metrics = {
        primary: round(rng.uniform(0.3, 0.9), 4),
        "accuracy": round(rng.uniform(0.5, 1.0), 4),
    }
    definitions = {name: f"{name} of {task}" for name in metrics}
    return metrics_record(
        model, task, seed, family=family, primary=primary, values=metrics, definitions=definitions
    )


@pytest.fixture(scope="module")
def report(tmp_path_factory, repo_root, validated_config) -> tuple[dict, dict]:
    """The report built from random metrics files (three seeds missing), its tables by id,
    and the metrics records by (model, task)."""
    root = tmp_path_factory.mktemp("medians")
    rng = random.Random(7)
    records: dict[tuple[str, str], list[dict]] = {}
    for model in MODELS:
        for task in TASKS:
            for seed in SEEDS:
                if (model, task, seed) not in MISSING:
                    record = _record(model, task, seed, rng)
                    records.setdefault((model, task), []).append(record)
                    path = root / PATTERN.format(model=model, task=task, seed=seed)
                    path.parent.mkdir(parents=True)
                    path.write_text(json.dumps(record), encoding="utf-8")
    for task in TASKS:
        path = root / BASELINE_PATTERN.format(task=task)
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps(_record(BASELINE, task, None, rng)), encoding="utf-8")
    out = root / "results/aggregate"
    aggregate(
        out / "scores.csv",
        out / "summary.csv",
        out / "averages.csv",
        out / "summary.md",
        models=MODELS,
        tasks=list(TASKS),
        seeds=SEEDS,
        metrics_pattern=str(root / PATTERN),
        baseline_pattern=str(root / BASELINE_PATTERN),
    )
    html = root / "report.html"
    build_report(
        html,
        repo_root / "workflow/report/report.html.j2",
        summary=out / "summary.csv",
        scores=out / "scores.csv",
        averages=out / "averages.csv",
        benchmarks=root / "benchmarks",
        config=validated_config({"report": {"title": "Medians"}}),
        source_dir=repo_root,
    )
    document = lxml.html.parse(str(html)).getroot()
    tables = {
        table.get("id"): [
            [cell.text_content().strip() for cell in row.xpath("th|td")] for row in table.iter("tr")
        ]
        for table in document.iter("table")
    }
    return tables, records


def _percent(value: float, digits: int) -> str:
    return f"{100 * value:.{digits}f}"


def test_results_table_cells_are_medians_and_spreads_of_the_primary_metric(report):
    tables, records = report
    header, *rows = tables["results-table"]
    assert header[1:] == [*MODELS, BASELINE]
    task_rows = [row for row in rows if len(row) == len(header)]  # not the family headings
    cells = {row[0]: dict(zip(header[1:], row[1:], strict=True)) for row in task_rows}
    for (model, task), runs in records.items():
        primary = TASKS[task][1]
        values = [run["metrics"][primary] for run in runs]
        expected = (
            f"{_percent(statistics.median(values), 1)} ± {_percent(statistics.stdev(values), 1)}"
        )
        if len(values) < len(SEEDS):
            expected += f" ({len(values)}/{len(SEEDS)} seeds)"
        assert cells[f"{task} ({primary})"][model] == expected, (model, task)


def test_all_metrics_table_cells_are_the_statistics_of_every_metric(report):
    tables, records = report
    header, *rows = tables["metrics-table"]
    by_key = {tuple(row[:3]): dict(zip(header, row, strict=True)) for row in rows}
    for (model, task), runs in records.items():
        for metric in runs[0]["metrics"]:
            values = [run["metrics"][metric] for run in runs]
            row = by_key[(model, task, metric)]
            assert row["median"] == _percent(statistics.median(values), 2)
            assert row["mean"] == _percent(statistics.mean(values), 2)
            assert row["std"] == _percent(statistics.stdev(values), 2)
            assert (row["min"], row["max"]) == (_percent(min(values), 2), _percent(max(values), 2))
            assert row["seeds"] == f"{len(values)}/{len(SEEDS)}"
            missing = [str(seed) for seed in SEEDS if (model, task, seed) in MISSING]
            assert row["missing_seeds"] == ";".join(missing)
