"""The HTML report built from hand-made result files: its numbers are the fixtures' numbers."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest
from browser_check import check_page, find_browser
from report_results import efficiency_result, metrics, write_json

from biocompact.datasets.check import check_split
from biocompact.datasets.registry import get_dataset
from biocompact.records.base import record_data
from biocompact.records.dataset_counts import PreparedFileCounts
from biocompact.report.aggregation import BASELINE, aggregate
from biocompact.report.glance import pareto_front
from biocompact.report.render import build_report
from biocompact.report.retention import write_retention
from biocompact.taskfiles.readers import UNTYPED_ENTITY, LabelledText, TaggedSentence
from biocompact.workflow.config_sections import parse_config

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


def _compression_row(fmt: str, latency: tuple[float, float, float], speedup: tuple) -> dict:
    """A summary.csv row of ``biocompact.compression.summary``: latency median, min, max (ms);
    speed-up median, min, max over rounds (empty for fp32)."""
    speedups = dict(zip(["speedup", "speedup_min", "speedup_max"], speedup))
    return {
        **{"model": "small", "task": "re-b", "seed": 1, "format": fmt},
        **{"primary_metric": "binary_f1", "score": 0.8, "score_change": 0.0, "size_mb": 40.0},
        **{"batch_size": 1, "sequence_length": 128, "threads": 2, "repeats": 3},
        **dict(zip(["latency_ms", "latency_ms_min", "latency_ms_max"], latency)),
        **speedups,
        "slower_than_fp32": bool(speedup) and speedup[2] < 1,
    }


COMPRESSION_ROWS = [
    _compression_row("fp32", (12.0, 11.0, 13.0), ()),
    _compression_row("int8", (6.0, 5.0, 6.5), (2.0, 2.0, 2.2)),
    _compression_row("onnx", (12.5, 12.1, 14.0), (0.93, 0.91, 0.96)),
]


@pytest.fixture(scope="module")
def report_file(
    tmp_path_factory: pytest.TempPathFactory, repo_root: Path, validated_config
) -> Path:
    """The report built from hand-made result files (a missing seed included)."""
    root = tmp_path_factory.mktemp("report")
    results = root / "results"
    for (model, task), values in F1.items():
        for seed, value in enumerate(values, start=1):
            if value is not None:
                write_json(
                    root / PATTERN.format(model=model, task=task, seed=seed),
                    metrics(model, task, seed, value, accuracy=value + 0.1),
                )
    for task, value in [("ner-a", 0.0), ("re-b", 0.5)]:
        write_json(
            root / BASELINE_PATTERN.format(task=task),
            metrics(BASELINE, task, None, value, accuracy=value + 0.1),
        )
    aggregate(
        results / "summary/scores.csv",
        results / "summary/summary.csv",
        results / "summary/averages.csv",
        results / "summary/summary.md",
        models=["big", "small"],
        tasks=["ner-a", "re-b"],
        seeds=[1, 2, 3],
        metrics_pattern=str(root / PATTERN),
        baseline_pattern=str(root / BASELINE_PATTERN),
    )
    # Rounds of big 1,024 / 1,000 / 1,100 ms and small 409.6 / 500 / 400 ms: per-round speed-ups
    # 2.5, 2.0, 2.75, median 2.5; FLOPs per token 8,000 / 2,000, a FLOP ratio of 4.
    for model, parameters, latencies_ms in [
        ("big", 4000, [1024.0, 1000.0, 1100.0]),
        ("small", 1000, [409.6, 500.0, 400.0]),
    ]:
        write_json(  # batch 8, length 128: 1,024 tokens a pass, compared with the other model
            results / f"efficiency/{model}.json",
            efficiency_result(
                model,
                layer_parameters=parameters - 100,
                latencies_ms=latencies_ms,
                batch_size=8,
                flops_per_token=2 * parameters,
                weights_mb=parameters / 100,
                layers=parameters // 1000,
                peak_activations_mb=3.5,
                compared_with=[{"big": "small", "small": "big"}[model]],
            ),
        )
    # Per logged interval: tokens/s x elapsed seconds = the interval's tokens; "tokens" is cumulative.
    logs = {
        "pretraining/big": [
            {
                "step": 10,
                "loss": 9.0,
                "tokens": 1000,
                "tokens_per_second": 100.0,
                "elapsed_s": 10.0,
            },
            {
                "step": 20,
                "loss": 7.5,
                "tokens": 3000,
                "tokens_per_second": 200.0,
                "elapsed_s": 10.0,
            },
        ],
        "distillation/small": [
            {
                "step": 10,
                "loss": 5.0,
                "loss_mlm": 3.0,
                "loss_soft": 2.0,
                "tokens": 500,
                "tokens_per_second": 125.0,
                "elapsed_s": 4.0,
            }
        ],
    }
    for name, rows in logs.items():
        path = results / name / "train_log.jsonl"
        path.parent.mkdir(parents=True)
        path.write_text(
            "".join(json.dumps({**row, "lr": 1e-3}) + "\n" for row in rows), encoding="utf-8"
        )
    probe = {
        "text": "The [MASK] binds the receptor.",
        "answer": "ligand",
        "predictions": [{"token": "ligand", "score": 0.4213}, {"token": "drug", "score": 0.1}],
    }
    for name, perplexity in [("pretraining/big", 12.3456), ("distillation/small", 20.5)]:
        write_json(
            results / name / "eval.json",
            {
                "model": name.split("/")[1],
                "parameters": 4000,
                "steps": 400,
                "train_tokens": 51200,
                "heldout_loss": 2.5133,
                "perplexity": perplexity,
                "heldout_tokens": 999,
                "fill_mask": [probe],
            },
        )
    write_json(
        results / "corpus/stats.json",
        {
            "records": 1300,
            "documents": 1234,
            "sentences": 5678,
            "words": 98765,
            "characters": 600000,
            "per_year": {"2019": 1000, "2020": 234},
            "skipped": {"no_abstract": 17},
            "files": ["a", "b"],
        },
    )
    write_json(
        results / "vocab/wp/stats.json",
        {
            "vocab": "wp",
            "type": "wordpiece",
            "lowercase": True,
            "sample_fraction": 1.0,
            "checkpoint": None,
            "vocab_size": 4000,
            "heldout_sentences": 10,
            "heldout_words": 200,
            "fertility": 1.3456,
            "unk_rate": 0.0012,
            "reference": {
                "name": "minilm",
                "vocab_size": 30522,
                "heldout_sentences": 10,
                "heldout_words": 200,
                "fertility": 1.5,
                "unk_rate": 0.0,
            },
        },
    )
    dataset_counts = []
    for name, split, tags, fold in [
        ("bc5cdr-disease", "dev", ["B"] * 4246, None),
        ("gad", "test", ["x"] * 3, "2"),
    ]:
        examples = (
            [TaggedSentence(["w"] * len(tags), [f"{t}-{UNTYPED_ENTITY}" for t in tags], "f", 1)]
            if get_dataset(name).family == "ner"
            else [LabelledText(str(i), "t", "1", "f", i) for i in range(len(tags))]
        )
        path = results / f"data/counts/{name}/{split}.json"
        counts = check_split(get_dataset(name), split, examples, fold)
        write_json(path, record_data(PreparedFileCounts(counts=counts, file=split, bytes=100)))
        dataset_counts.append(path)
    for job, seconds in [
        ("pretraining/big", 100.0),
        ("finetuning/big_ner-a_1", 10.0),
        ("finetuning/big_re-b_1", 5.5),
    ]:
        path = results / "benchmarks" / f"{job}.tsv"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            f"s\th:m:s\tmax_rss\tcpu_time\n{seconds}\t0:00:01\t{seconds * 2}\t{seconds / 2}\n"
        )
    write_retention(
        results / "summary/scores.csv",
        results / "summary/summary.csv",
        {"small": "big"},
        results / "summary/retention.csv",
    )
    output = results / "report/report.html"
    compression = results / "compression/summary.csv"
    compression.parent.mkdir(parents=True)
    pd.DataFrame(COMPRESSION_ROWS).to_csv(compression, index=False)
    config = validated_config(
        {
            "report": {"title": "Fixture"},
            "vocabularies": {"wp": {"type": "wordpiece"}},
            "pretraining": {
                "big": {"vocabulary": "wp", "steps": 10, "batch_size": 8, "learning_rate": 1e-4}
            },
            "finetuning": {"tasks": {"ner-a": {"dataset": "ncbi-disease", "preset": "bert"}}},
        }
    )
    build_report(
        output,
        repo_root / "workflow/report/report.html.j2",
        summary=results / "summary/summary.csv",
        scores=results / "summary/scores.csv",
        averages=results / "summary/averages.csv",
        efficiency=[results / "efficiency/big.json", results / "efficiency/small.json"],
        train_logs=[
            results / "pretraining/big/train_log.jsonl",
            results / "distillation/small/train_log.jsonl",
        ],
        evals=[results / "pretraining/big/eval.json", results / "distillation/small/eval.json"],
        corpus=results / "corpus/stats.json",
        vocab=[results / "vocab/wp/stats.json"],
        datasets=dataset_counts,
        benchmarks=results / "benchmarks",
        retention=results / "summary/retention.csv",
        compression=compression,
        config=config,
        facts=parse_config(config).report_facts(),
        title="Fixture report",
        source_dir=repo_root,
        published=repo_root / "workflow/report/published_results.csv",
    )
    return output


@pytest.fixture(scope="module")
def report(report_file: Path) -> tuple[str, dict]:
    html = report_file.read_text(encoding="utf-8")
    parser = Tables()
    parser.feed(html)
    return html, parser.tables


def rows_by_first_cell(table) -> dict[str, list[tuple[str, str, set[str]]]]:
    return {row[0][0]: row for row in table[1:]}


def test_retention_table_student_over_teacher_with_seed_range(report):
    _, tables = report
    table = tables["retention-table"]
    assert [cell[0] for cell in table[0]] == ["Student", "Teacher", "ner-a", "re-b", "Overall"]
    student, teacher, ner, re, overall = table[1]
    assert (student[0], teacher[0]) == ("small", "big")
    # ner-a: median(0.70, 0.74) / median(0.80, 0.82, 0.84); seeds 1 and 3 pair: .70/.80, .74/.84
    assert ner[0] == "87.8 % (87.5-88.1)" and "student 72.0 / teacher 82.0" in ner[1]
    assert re[0] == "104.9 % (98.5-108.2)"  # 0.64 / 0.61; .64/.65 to .66/.61
    # mean of medians (0.72 + 0.64) / 2 over (0.82 + 0.61) / 2; seeds 1 and 3 ran both tasks
    assert overall[0] == "95.1 % (92.6-94.3)"


def test_results_table_medians_spread_and_ranks(report):
    _, tables = report
    table = tables["results-table"]
    assert [cell[0] for cell in table[0]] == ["Task (metric)", "big", "small", BASELINE]
    rows = rows_by_first_cell(table)
    assert list(rows) == [
        "Named entity recognition (NER)",
        "ner-a (f1)",
        "NER average",
        "Relation extraction (RE)",
        "re-b (f1)",
        "RE average",
        "Overall average",
    ]
    big_ner, small_ner, baseline_ner = rows["ner-a (f1)"][1:]
    assert big_ner[0] == "82.0 ± 2.0" and "b" in big_ner[2]  # median 0.82, sd of .80/.82/.84
    assert "min-max 80.0-84.0" in big_ner[1]
    assert small_ner[0] == "72.0 ± 2.8 (2/3 seeds)" and "u" in small_ner[2]  # (0.70 + 0.74) / 2
    assert "missing seeds: 2" in small_ner[1]
    assert baseline_ner[0] == "0.0" and not baseline_ner[2]  # the baseline is not ranked
    big_re, small_re, baseline_re = rows["re-b (f1)"][1:]
    assert big_re[0] == "61.0 ± 2.6" and "u" in big_re[2]
    assert small_re[0] == "64.0 ± 2.0" and "b" in small_re[2]
    assert baseline_re[0] == "50.0" and not baseline_re[2]
    assert [cell[0] for cell in rows["NER average"][1:]] == ["82.0", "72.0", "0.0"]
    overall = rows["Overall average"][1:]
    assert [cell[0] for cell in overall] == [
        "71.5",
        "68.0",
        "25.0",
    ]  # (.82 + .61) / 2, (.72 + .64) / 2
    assert "b" in overall[0][2] and "u" in overall[1][2]


def test_published_results_beside_ours(report):
    _, tables = report
    rows = {
        (row[0][0], row[4][0]): [cell[0] for cell in row] for row in tables["published-table"][1:]
    }
    # ner-a is on NCBI-disease: the papers' entity F1 rows (Rohanian et al., Table 1: 85.22;
    # Fang et al., Table 3: 87.73) beside our medians (82.0 big, 72.0 small, baseline 0.0)
    assert rows[("ner-a (f1)", "TinyBioBERT")][1:6] == [
        "82.0",
        "72.0",
        "0.0",
        "TinyBioBERT",
        "85.2",
    ]
    assert rows[("ner-a (f1)", "Bioformer-16L")][5:7] == [
        "87.7",
        "Fang, Chen, Wei, Lu, Wang 2023, Bioformer: an efficient transformer language model "
        "for biomedical text mining, Table 3",
    ]
    assert all(key[0] == "ner-a (f1)" for key in rows)  # re-b names no dataset


def test_at_a_glance(report):
    html, tables = report
    assert re.search(r"Most accurate</dt><dd>big: overall average 71\.5", html)
    # small: per-round speed-ups 2.5, 2.0, 2.75 over big (median 2.5) with 25% of its parameters,
    # 68.0 / 71.5 = 95.1% of its mean task score (no model at the floor); 2.5 / FLOP ratio 4
    # = 0.62, inside the band 0.5-1.5.
    assert re.search(
        r"Fastest</dt><dd>small: 2\.50x the throughput of big \(median of 3 interleaved rounds, "
        r"range 2\.00-2\.75x; 2,500 vs 1,000 tokens/s, cpu, batch 8, length 128, 2 thread\(s\); "
        r"FLOP ratio 4\.00x\) with 25% of its parameters, keeping 95\.1% of its score \(mean over "
        r"the tasks where neither is at the constant floor; overall averages 68\.0 vs 71\.5\)"
        r"</dd>",
        html,
    )
    assert re.search(r"Smallest</dt><dd>small \(1,000 parameters\)", html)
    glance = tables["glance-table"]
    assert glance[0][5][0] == "Speed-up vs big (cpu, batch 8, length 128)"
    assert [[cell[0] for cell in row] for row in glance[1:]] == [
        ["big", "71.5", "100.0%", "4,000", "100%", "1.00x (1.00-1.00)", "yes"],
        ["small", "68.0", "95.1%", "1,000", "25%", "2.50x (2.00-2.75)", "yes"],
    ]
    assert "FLOP ratio 4.00x, the speed-up is 0.62x of it" in glance[2][5][1]


def test_all_metrics_and_definitions(report):
    _, tables = report
    metric_rows = {
        (r[0][0], r[1][0], r[2][0]): [c[0] for c in r] for r in tables["metrics-table"][1:]
    }
    assert metric_rows[("small", "ner-a", "accuracy")][4:] == [
        "82.00",
        "82.00",
        "2.83",
        "80.00",
        "84.00",
        "2/3",
        "2",
        "",
    ]
    definitions = {(r[0][0], r[1][0]): r[2][0] for r in tables["definitions-table"][1:]}
    assert definitions[("re-b", "f1")] == "F1 of re-b"
    assert definitions[("ner-a", "accuracy")] == "share of correct predictions"


def test_efficiency_training_speed_and_cost(report):
    html, tables = report
    sizes = rows_by_first_cell(tables["size-table"])
    assert [cell[0] for cell in sizes["small"][3:]] == ["1,000", "100", "900", "25%"]
    efficiency = rows_by_first_cell(tables["efficiency-table"])
    assert [cell[0] for cell in efficiency["small"][4:13]] == [
        "2,000",
        "409.60",
        "400.00-500.00",
        "19.5",  # 8 sequences / 0.4096 s
        "2,500",  # 1,024 tokens / 0.4096 s
        "2.50x (2.00-2.75)",
        "4.00x",
        "10.0",  # weights: 1,000 parameters / 100
        "3.5",  # activations
    ]
    assert efficiency["big"][9][0] == "1.00x (1.00-1.00)" and efficiency["big"][5][0] == "1,024.00"
    training = {row[1][0]: [c[0] for c in row] for row in tables["training-speed-table"][1:]}
    assert training["big"] == [
        "pretraining",
        "big",
        "20",
        "3,000",
        "20.0",
        "150",
    ]  # (1000 + 2000) / 20 s
    assert training["small"] == ["distillation", "small", "10", "500", "4.0", "125"]
    cost = {row[0][0]: [c[0] for c in row] for row in tables["cost-table"][1:]}
    assert cost["finetuning"][1:] == ["2", "15.5", "7.8", "20.0"]
    assert cost["total"][1:3] == ["3", "115.5"]


def test_models_corpus_and_vocab(report):
    html, tables = report
    evals = rows_by_first_cell(tables["eval-table"])
    assert [c[0] for c in evals["pretraining"]][1:] == [
        "big",
        "4,000",
        "400",
        "51,200",
        "999",
        "2.5133",
        "12.35",
    ]
    probe = tables["fill-mask-table"][1]
    assert probe[3][0] == "yes" and "ligand (0.421)" in probe[4][0]
    assert [c[0] for c in tables["corpus-table"][1]] == ["1,234", "5,678", "98,765", "600,000", "2"]
    assert [c[0] for c in tables["per-year-table"][2]] == ["2020", "234"]
    vocab = rows_by_first_cell(tables["vocab-table"])
    assert vocab["wp"][4][0] == "1.346" and vocab["minilm (reference for wp)"][2][0] == "30,522"
    checked = [[cell[0] for cell in row] for row in tables["datasets-table"][1:]]
    assert checked[0][:8] == [
        "bc5cdr-disease",
        "dev",
        "dev",
        "mentions",
        "4,246",
        "4,244",
        "2",
        "Fang et al. 2023 Table 2",
    ]
    assert "4,246" in checked[0][8]
    assert checked[1][:6] == ["gad", "test (fold 2)", "test", "instances", "3", ""]
    assert "no size per fold" in checked[1][8]
    assert (
        html.count("<svg") == 5
    )  # seed spread, accuracy vs speed and vs size, speed-up, training curves
    assert "loss_soft" in html


def test_design_choices_table(report, report_file: Path):
    _, tables = report
    averages = pd.read_csv(report_file.parent.parent / "summary/averages.csv")
    overall = averages[(averages.model == "big") & (averages.group == "overall")]["value"].item()
    rows = rows_by_first_cell(tables["ablation-table"])
    assert list(rows) == ["big"]  # pretrained models only
    assert [c[0] for c in rows["big"]] == [
        "big",
        "bert",
        "mlm",
        "wp",
        "wordpiece",
        "2.5133",
        f"{100 * overall:.1f}",
    ]


def test_self_contained_with_provenance(report):
    html, tables = report
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", html, re.IGNORECASE)
    assert (
        "<script" not in html.lower()
        and "<link" not in html.lower()
        and "<!doctype svg" not in html.lower()
    )
    versions = {row[0][0]: row[1][0] for row in tables["versions-table"][1:]}
    assert versions["pandas"] == pd.__version__ and "python" in versions
    assert "title: Fixture" in html
    assert re.search(r"from commit <code>[0-9a-f]{40}( \(\+ uncommitted changes\))?</code>", html)
    assert "Bioformer, Table 3: (8 NER + 4 RE + 2 DC + 1 QA) / 15" in html


def test_pareto_front():
    speed = pd.Series([1.0, 2.0, 3.0, 0.5])
    accuracy = pd.Series([0.9, 0.8, 0.7, 0.85])
    assert pareto_front(speed, accuracy, maximise_x=True).tolist() == [True, True, True, False]
    assert pareto_front(speed, accuracy, maximise_x=False).tolist() == [True, False, False, True]


def test_report_does_not_import_the_training_stack():
    code = (
        "import sys, biocompact.report, biocompact.report.aggregation; "
        "print(sorted(m for m in ('torch', 'transformers') if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


@pytest.fixture(scope="session")
def chromium() -> str:
    """Debian's chromium, installed with apt-get when missing (needs root), else the test is skipped."""
    if browser := find_browser():
        return browser
    if not shutil.which("apt-get"):
        pytest.skip("chromium is not installed and there is no apt-get to install it")
    if os.geteuid() != 0:
        pytest.skip(
            "chromium is not installed; installing it (apt-get install -y chromium) needs root"
        )
    environment = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "chromium"]
    if subprocess.run(install, env=environment, capture_output=True).returncode != 0:
        subprocess.run(["apt-get", "update"], env=environment, capture_output=True)
        result = subprocess.run(install, env=environment, capture_output=True, text=True)
        if result.returncode != 0:
            pytest.skip(f"apt-get install chromium failed: {result.stderr.strip()[-300:]}")
    browser = find_browser()
    if browser is None:
        pytest.skip("apt-get installed chromium but no chromium binary is on PATH")
    return browser


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def test_report_renders_in_headless_chromium(report_file: Path, chromium: str, tmp_path: Path):
    page = check_page(report_file, width=1280, browser=chromium)
    screenshot = tmp_path / "report.png"
    screenshot.write_bytes(page.screenshot)
    width, height = png_size(page.screenshot)
    assert width >= 1200 and height > 3000, (width, height)  # the whole page, not one screen
    assert page.console_errors == []
    assert page.requests == [report_file.resolve().as_uri()] and page.external_requests == []


def test_browser_check_sees_errors_and_external_requests(chromium: str, tmp_path: Path):
    page = tmp_path / "bad.html"
    page.write_text(
        '<!DOCTYPE html><html><body><img src="https://example.invalid/x.png">'
        '<script>console.error("boom"); missing_function();</script></body></html>',
        encoding="utf-8",
    )
    result = check_page(page, browser=chromium)
    assert "boom" in result.console_errors
    assert any("missing_function" in error for error in result.console_errors)
    assert result.external_requests == ["https://example.invalid/x.png"]


def test_compression_table_shows_latency_spread_and_flags_a_format_slower_in_every_round(report):
    html, tables = report
    texts = [text for text, _, _ in tables["compression-table"][1]]
    assert texts[5] == "12.0 (11.0-13.0)"
    assert texts[9:11] == ["6.0 (5.0-6.5)", "2.00x (2.00-2.20)"]
    assert texts[14] == "12.5 (12.1-14.0)"
    assert texts[15].startswith("0.93x (0.91-0.96)") and "check: slower than fp32" in texts[15]
    assert "batch 1, sequence length 128, 2 thread(s), 3 rounds" in html
