"""Two studies in one checkout, each in its own directory (docs/running-stages.md, "Several
studies in one checkout"): run for real from the documented configs, neither touches the
other's files, and nothing lands in the checkout's own results/."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from snakemake_runs import OFFLINE_ENV, REPO_ROOT

pytestmark = pytest.mark.slow

GUIDE = REPO_ROOT / "docs/running-stages.md"


def _documented(name: str) -> str:
    """The ```yaml block of the guide that starts with ``# NAME:``."""
    [block] = re.findall(
        rf"^```yaml\n(# {re.escape(name)}:.*?)^```", GUIDE.read_text(), re.S | re.M
    )
    return block


def _studies_commands() -> list[list[str]]:
    """The guide's snakemake commands that run a study with --directory."""
    return [
        line.split()
        for line in GUIDE.read_text().splitlines()
        if line.startswith("snakemake ") and "--directory studies/" in line
    ]


def _files(folder: Path) -> dict[str, int]:
    return {
        str(p.relative_to(folder)): p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()
    }


def test_two_studies_keep_apart(tmp_path):
    checkout = tmp_path / "biocompact"
    checkout.mkdir()
    for entry in REPO_ROOT.iterdir():
        if entry.name not in (".git", ".venv", "results", ".snakemake", "studies"):
            (checkout / entry.name).symlink_to(entry)
    for name in ("study-a.yaml", "study-b.yaml"):
        (checkout / name).write_text(_documented(name))
    commands = _studies_commands()
    assert [command[command.index("--directory") + 1] for command in commands] == [
        "studies/a",
        "studies/b",
    ]
    snapshots = {}
    for command in commands:
        study = checkout / command[command.index("--directory") + 1]
        result = subprocess.run(
            [sys.executable, "-m", "snakemake", "--cores", "2", *command[1:]],
            cwd=checkout,
            capture_output=True,
            text=True,
            env=OFFLINE_ENV,
            check=False,
        )
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
        snapshots[study.name] = _files(study)
    # study b ran after a: a's files are all there, none rewritten
    assert _files(checkout / "studies/a") == snapshots["a"]
    assert not (checkout / "results").exists()
    rates = {}
    for name in ("a", "b"):
        results = checkout / "studies" / name / "results"
        assert (results / "report/report.html").stat().st_size > 0
        assert (results / "aggregate/summary.csv").exists()
        metrics = json.loads(
            (results / "finetuning/minilm/gene-disease/seed1/metrics.json").read_text()
        )
        rates[name] = metrics["hyperparameters"]["learning_rate"]
    assert rates == {"a": 5.0e-5, "b": 1.0e-4}
