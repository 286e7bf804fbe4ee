"""A bad config fails before any job runs, with a message naming the offending key."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parents[1]


def _dry_run(tmp_path: Path, config: dict) -> subprocess.CompletedProcess:
    path = tmp_path / "config.yaml"
    if not (tmp_path / "demo").exists():
        (tmp_path / "demo").symlink_to(REPO_ROOT / "demo")
    path.write_text(yaml.safe_dump(config))
    return subprocess.run(
        [sys.executable, "-m", "snakemake", "--snakefile", str(REPO_ROOT / "Snakefile"),
         "--directory", str(tmp_path), "--configfile", str(path), "-n", "--cores", "1"],
        capture_output=True, text=True, check=False,
    )


@pytest.fixture
def demo_config() -> dict:
    return yaml.safe_load((REPO_ROOT / "config.yaml").read_text())


def test_demo_config_builds_the_whole_dag(tmp_path, demo_config):
    result = _dry_run(tmp_path, demo_config)
    assert result.returncode == 0, result.stderr[-3000:]
    n_finetune = len(demo_config["finetuning"]["models"]) * len(demo_config["finetuning"]["tasks"]) * 5
    counts = dict(line.split() for line in result.stdout.splitlines() if line.startswith(("finetune ", "pretrain ")))
    assert counts == {"finetune": str(n_finetune), "pretrain": str(len(demo_config["pretraining"]))}


def test_misspelt_key_is_named(tmp_path, demo_config):
    demo_config["finetuning"]["presets"]["demo"]["lerning_rate"] = 1e-4
    result = _dry_run(tmp_path, demo_config)
    assert result.returncode != 0
    assert "lerning_rate" in result.stdout + result.stderr


def test_wrong_type_is_named(tmp_path, demo_config):
    demo_config["pretraining"]["teacher"]["steps"] = "many"
    result = _dry_run(tmp_path, demo_config)
    assert result.returncode != 0
    assert "'many' is not of type 'integer'" in result.stdout + result.stderr


def test_unknown_model_reference_is_named(tmp_path, demo_config):
    demo_config["finetuning"]["models"].append("no-such-model")
    result = _dry_run(tmp_path, demo_config)
    assert result.returncode != 0
    assert "finetuning.models names 'no-such-model'" in result.stdout + result.stderr


def test_defaults_are_filled_in(tmp_path, demo_config):
    del demo_config["finetuning"]["seeds"]
    result = _dry_run(tmp_path, demo_config)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "seed5" in result.stdout
