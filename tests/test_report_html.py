"""The HTML report built from hand-made result files: its numbers are the fixtures' numbers."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest

from biocompact.aggregation import BASELINE, aggregate
from biocompact.report import build_report
from biocompact.report.plots import pareto_front

PATTERN = "results/finetuning/{model}/{task}/seed{seed}/metrics.json"
BASELINE_PATTERN = "results/baselines/{task}/metrics.json"
# (model, task) -> F1 per seed 1..3 (None: the run is missing).
F1 = {
    ("big", "ner-a"): [0.80, 0.82, 0.84],
    ("small", "ner-a"): [0.70, None, 0.74],
    ("big", "re-b"): [0.60, 0.61, 0.65],
    ("small", "re-b"): [0.62, 0.66, 0.64],
}


class Tables(HTMLParser):
    """Cells of every ``<table id=...>``: (text, title, set of inline tags) per cell."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[tuple[str, str, set[str]]]]] = {}
        self.current: str | None = None
        self.cell: list | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table":
            self.current = attrs.get("id")
            self.tables[self.current] = []
        elif tag == "tr" and self.current:
            self.tables[self.current].append([])
        elif tag in ("td", "th") and self.current:
            self.cell = ["", attrs.get("title", ""), set()]
        elif self.cell is not None:
            self.cell[2].add(tag)

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.tables[self.current][-1].append((self.cell[0].strip(), self.cell[1], self.cell[2]))
            self.cell = None
        elif tag == "table":
            self.current = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell[0] += data


def write_json(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


def metrics(model: str, task: str, seed: int | None, f1: float) -> dict:
    return {"model": model, "task": task, "seed": seed, "family": task.split("-")[0], "primary_metric": "f1",
            "metrics": {"f1": f1, "accuracy": f1 + 0.1},
            "definitions": {"f1": f"F1 of {task}", "accuracy": "share of correct predictions"}}


def efficiency(model: str, parameters: int, tokens_per_second: float) -> dict:
    measurement = {"device": "cpu", "batch_size": 8, "sequence_length": 128, "latency_ms": 1024000 / tokens_per_second,
                   "latency_ms_runs": [], "sequences_per_second": tokens_per_second / 128,
                   "tokens_per_second": tokens_per_second, "peak_memory_mb": 300.0, "flops_per_token": 2 * parameters}
    return {"model": model, "parameters": {"total": parameters, "embedding": 100, "non_embedding": parameters - 100,
                                           "layers": parameters - 100}, "measurements": [measurement]}


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory, repo_root: Path) -> tuple[str, dict]:
    root = tmp_path_factory.mktemp("report")
    results = root / "results"
    for (model, task), values in F1.items():
        for seed, value in enumerate(values, start=1):
            if value is not None:
                write_json(root / PATTERN.format(model=model, task=task, seed=seed), metrics(model, task, seed, value))
    for task, value in [("ner-a", 0.0), ("re-b", 0.5)]:
        write_json(root / BASELINE_PATTERN.format(task=task), metrics(BASELINE, task, None, value))
    aggregate(results / "summary/scores.csv", results / "summary/summary.csv", results / "summary/averages.csv",
              results / "summary/summary.md", ["big", "small"], ["ner-a", "re-b"], [1, 2, 3],
              str(root / PATTERN), str(root / BASELINE_PATTERN))
    write_json(results / "efficiency/big.json", efficiency("big", 4000, 1000.0))
    write_json(results / "efficiency/small.json", efficiency("small", 1000, 2500.0))
    logs = {"pretraining/big": [{"step": 10, "loss": 9.0}, {"step": 20, "loss": 7.5}],
            "distillation/small": [{"step": 10, "loss": 5.0, "loss_mlm": 3.0, "loss_soft": 2.0}]}
    for name, rows in logs.items():
        path = results / name / "train_log.jsonl"
        path.parent.mkdir(parents=True)
        path.write_text("".join(json.dumps({**row, "lr": 1e-3}) + "\n" for row in rows), encoding="utf-8")
    probe = {"text": "The [MASK] binds the receptor.", "answer": "ligand",
             "predictions": [{"token": "ligand", "score": 0.4213}, {"token": "drug", "score": 0.1}]}
    for name, perplexity in [("pretraining/big", 12.3456), ("distillation/small", 20.5)]:
        write_json(results / name / "eval.json", {"model": name.split("/")[1], "parameters": 4000, "steps": 400,
                                                  "train_tokens": 51200, "heldout_loss": 2.5133,
                                                  "perplexity": perplexity, "heldout_tokens": 999,
                                                  "fill_mask": [probe]})
    write_json(results / "corpus/stats.json", {"documents": 1234, "sentences": 5678, "words": 98765,
                                               "characters": 600000, "per_year": {"2019": 1000, "2020": 234},
                                               "skipped": {"no_abstract": 17}, "files": ["a", "b"]})
    write_json(results / "vocab/wp/stats.json", {"vocab": "wp", "type": "wordpiece", "vocab_size": 4000,
                                                 "lowercase": True, "heldout_sentences": 10, "heldout_words": 200,
                                                 "fertility": 1.3456, "unk_rate": 0.0012,
                                                 "reference": {"name": "minilm", "vocab_size": 30522,
                                                               "fertility": 1.5, "unk_rate": 0.0}})
    for job, seconds in [("pretraining/big", 100.0), ("finetuning/big_ner-a_1", 10.0), ("finetuning/big_re-b_1", 5.5)]:
        path = results / "benchmarks" / f"{job}.tsv"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"s\th:m:s\tmax_rss\tcpu_time\n{seconds}\t0:00:01\t{seconds * 2}\t{seconds / 2}\n")
    output = results / "report/report.html"
    build_report(output, repo_root / "workflow/report/report.html.j2",
                 summary=results / "summary/summary.csv", scores=results / "summary/scores.csv",
                 averages=results / "summary/averages.csv",
                 efficiency=[results / "efficiency/big.json", results / "efficiency/small.json"],
                 train_logs=[results / "pretraining/big/train_log.jsonl",
                             results / "distillation/small/train_log.jsonl"],
                 evals=[results / "pretraining/big/eval.json", results / "distillation/small/eval.json"],
                 corpus=results / "corpus/stats.json", vocab=[results / "vocab/wp/stats.json"],
                 benchmarks=results / "benchmarks", config={"report": {"title": "Fixture"}}, title="Fixture report",
                 source_dir=repo_root)
    html = output.read_text(encoding="utf-8")
    parser = Tables()
    parser.feed(html)
    return html, parser.tables


def rows_by_first_cell(table) -> dict[str, list[tuple[str, str, set[str]]]]:
    return {row[0][0]: row for row in table[1:]}


def test_results_table_medians_spread_and_ranks(report):
    _, tables = report
    header = [cell[0] for cell in tables["results-table"][0]]
    assert header == ["Model", "ner-a (f1)", "re-b (f1)", "NER avg.", "RE avg.", "Overall"]
    rows = rows_by_first_cell(tables["results-table"])
    big_ner, big_re, *_, big_overall = rows["big"][1:]
    assert big_ner[0] == "82.0 ± 2.0" and "b" in big_ner[2]  # median 0.82, sd of .80/.82/.84
    assert "min-max 80.0-84.0" in big_ner[1]
    small_ner = rows["small"][1]
    assert small_ner[0] == "72.0 ± 2.8 (2/3 seeds)" and "u" in small_ner[2]  # (0.70 + 0.74) / 2
    assert "missing seeds: 2" in small_ner[1]
    assert big_re[0] == "61.0 ± 2.6" and "u" in big_re[2]
    assert rows["small"][2][0] == "64.0 ± 2.0" and "b" in rows["small"][2][2]
    assert big_overall[0] == "71.5"  # (0.82 + 0.61) / 2
    assert rows["small"][-1][0] == "68.0"  # (0.72 + 0.64) / 2
    baseline = rows[BASELINE]
    assert [cell[0] for cell in baseline[1:3]] == ["0.0", "50.0"] and not baseline[1][2]


def test_all_metrics_and_definitions(report):
    _, tables = report
    metric_rows = {(r[0][0], r[1][0], r[2][0]): [c[0] for c in r] for r in tables["metrics-table"][1:]}
    assert metric_rows[("small", "ner-a", "accuracy")][4:] == ["82.00", "82.00", "2.83", "80.00", "84.00", "2/3", "2"]
    definitions = {(r[0][0], r[1][0]): r[2][0] for r in tables["definitions-table"][1:]}
    assert definitions[("re-b", "f1")] == "F1 of re-b"
    assert definitions[("ner-a", "accuracy")] == "share of correct predictions"


def test_headline_efficiency_and_cost(report):
    html, tables = report
    assert re.search(r"Best on average</dt><dd>big \(overall average 71\.5\)", html)
    assert re.search(r"Fastest</dt><dd>small \(2,500 tokens/s", html)
    assert re.search(r"Smallest</dt><dd>small \(1,000 parameters\)", html)
    efficiency = rows_by_first_cell(tables["efficiency-table"])
    assert efficiency["small"][10][0] == "2.50x" and efficiency["big"][10][0] == "1.00x"
    cost = {row[0][0]: [c[0] for c in row] for row in tables["cost-table"][1:]}
    assert cost["finetuning"][1:] == ["2", "15.5", "7.8", "20.0"]
    assert cost["total"][1:3] == ["3", "115.5"]


def test_models_corpus_and_vocab(report):
    html, tables = report
    evals = rows_by_first_cell(tables["eval-table"])
    assert [c[0] for c in evals["pretraining"]][1:] == ["big", "4,000", "400", "51,200", "999", "2.5133", "12.35"]
    probe = tables["fill-mask-table"][1]
    assert probe[3][0] == "yes" and "ligand (0.421)" in probe[4][0]
    assert [c[0] for c in tables["corpus-table"][1]] == ["1,234", "5,678", "98,765", "600,000", "2"]
    assert [c[0] for c in tables["per-year-table"][2]] == ["2020", "234"]
    vocab = rows_by_first_cell(tables["vocab-table"])
    assert vocab["wp"][4][0] == "1.346" and vocab["minilm (reference for wp)"][2][0] == "30,522"
    assert html.count("<svg") == 4  # seed spread, speed, size, training curves
    assert "loss_soft" in html


def test_self_contained_with_provenance(report):
    html, tables = report
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", html, re.IGNORECASE)
    assert "<script" not in html.lower() and "<link" not in html.lower() and "<!doctype svg" not in html.lower()
    versions = {row[0][0]: row[1][0] for row in tables["versions-table"][1:]}
    assert versions["pandas"] == pd.__version__ and "python" in versions
    assert "title: Fixture" in html
    assert re.search(r"from commit <code>[0-9a-f]{40}</code>", html)


def test_pareto_front():
    speed = pd.Series([1.0, 2.0, 3.0, 0.5])
    accuracy = pd.Series([0.9, 0.8, 0.7, 0.85])
    assert pareto_front(speed, accuracy, maximise_x=True).tolist() == [True, True, True, False]
    assert pareto_front(speed, accuracy, maximise_x=False).tolist() == [True, False, False, True]


def test_report_does_not_import_the_training_stack():
    code = ("import sys, biocompact.report, biocompact.aggregation; "
            "print(sorted(m for m in ('torch', 'transformers') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
