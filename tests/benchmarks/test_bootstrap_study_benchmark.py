"""benchmarks/bootstrap_study.py (the comparisons job's timing in docs/report.md) on a study
cut to two small tasks, two models and two seeds: its synthetic runs are records the
report reads, and the timed job runs through."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from biocompact.records.metrics import MetricsRecord

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bootstrap_study.py"
spec = importlib.util.spec_from_file_location("bootstrap_study", SCRIPT)
bootstrap_study = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bootstrap_study)


def _small_study(monkeypatch) -> None:
    tasks = {name: bootstrap_study.TASKS[name] for name in ("biosses", "gad")}
    monkeypatch.setattr(bootstrap_study, "TASKS", tasks)
    monkeypatch.setattr(bootstrap_study, "MODELS", ["teacher", "student-6l"])
    monkeypatch.setattr(bootstrap_study, "SEEDS", [1, 2])


def test_the_study_writes_records_of_each_run(tmp_path, monkeypatch):
    _small_study(monkeypatch)
    bootstrap_study.write_study(tmp_path)
    record = MetricsRecord.read(tmp_path / "student-6l" / "gad" / "seed2" / "metrics.json")
    assert (record.model, record.task, record.seed) == ("student-6l", "gad", 2)
    assert (record.family, record.primary_metric, record.labels) == ("re", "binary_f1", ["0", "1"])
    baseline = MetricsRecord.read(tmp_path / "baselines" / "biosses" / "metrics.json")
    assert (baseline.task, baseline.seed, baseline.primary_metric) == ("biosses", None, "pearson")


def test_the_timed_job_runs_and_prints_its_figures(monkeypatch, capsys):
    _small_study(monkeypatch)
    monkeypatch.setattr(sys, "argv", ["bootstrap_study.py", "--resamples", "20", "--repeats", "1"])
    bootstrap_study.main()
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(
        "comparisons job, 2 tasks x 2 models x 2 seeds + baseline, 20 resamples: "
    )
    assert lines[1].startswith("wall-clock: median ") and lines[1].endswith(" over 1 runs")
    assert lines[2].startswith("CPU: median ")
