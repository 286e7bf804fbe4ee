"""The model families end to end: configs/families-demo.yaml through fine-tuning into the report."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parents[1]
CONFIG = REPO_ROOT / "configs" / "families-demo.yaml"
ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}


def _snakemake(workdir: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "snakemake",
            "--snakefile",
            str(REPO_ROOT / "Snakefile"),
            "--directory",
            str(workdir),
            "--configfile",
            str(workdir / "config.yaml"),
            *args,
        ],
        capture_output=True,
        text=True,
        env=ENV,
        check=False,
    )


@pytest.fixture(scope="module")
def families_run(tmp_path_factory) -> Path:
    workdir = tmp_path_factory.mktemp("families")
    shutil.copy(CONFIG, workdir / "config.yaml")
    shutil.copytree(REPO_ROOT / "demo", workdir / "demo")
    result = _snakemake(workdir, "--cores", "2")
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-5000:]
    return workdir


@pytest.mark.slow
def test_each_vocabulary_type_has_statistics(families_run):
    for name, settings in yaml.safe_load(CONFIG.read_text())["vocabularies"].items():
        stats = json.loads((families_run / f"results/vocab/{name}/stats.json").read_text())
        assert (
            stats["type"] == settings["type"]
            and stats["fertility"] >= 1.0
            and stats["unk_rate"] < 0.01
        )


@pytest.mark.slow
def test_each_family_is_pretrained_with_its_objective(families_run):
    expected = {
        "bert-nsp": ("bert", "nsp"),
        "roberta-bpe": ("roberta", "mlm"),
        "electra-wordpiece": ("electra", "electra"),
        "albert-unigram": ("albert", "albert"),
    }
    for model, (family, objective) in expected.items():
        evaluation = json.loads(
            (families_run / f"results/pretraining/{model}/eval.json").read_text()
        )
        assert (evaluation["family"], evaluation["objective"]) == (family, objective)
        assert evaluation["architecture"]["model_type"] == family
    electra = json.loads(
        (families_run / "results/pretraining/electra-wordpiece/eval.json").read_text()
    )
    assert (
        electra["heldout_model"] == "generator" and 0.5 < electra["replaced_token_accuracy"] <= 1.0
    )
    albert = json.loads((families_run / "results/pretraining/albert-unigram/eval.json").read_text())
    assert 0.0 <= albert["sentence_order_accuracy"] <= 1.0
    bert = json.loads((families_run / "results/pretraining/bert-nsp/eval.json").read_text())
    assert 0.0 <= bert["next_sentence_accuracy"] <= 1.0


@pytest.mark.slow
def test_every_family_is_fine_tuned_into_the_report(families_run):
    summary = pd.read_csv(families_run / "results/aggregate/summary.csv")
    html = (families_run / "results/report/report.html").read_text(encoding="utf-8")
    for model in yaml.safe_load(CONFIG.read_text())["finetuning"]["models"]:
        metrics = json.loads(
            (families_run / f"results/finetuning/{model}/demo-ner/seed1/metrics.json").read_text()
        )
        assert 0.0 <= metrics["metrics"][metrics["primary_metric"]] <= 1.0
        assert model in set(summary.model) and model in html


def test_an_electra_discriminator_is_no_distillation_teacher(tmp_path):
    config = yaml.safe_load(CONFIG.read_text())
    config["distillation"] = {
        "student": {
            "teacher": "electra-wordpiece",
            "steps": 1,
            "batch_size": 2,
            "learning_rate": 1e-3,
        }
    }
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    result = _snakemake(tmp_path, "-n")
    assert result.returncode != 0
    assert (
        "'electra-wordpiece' is an ELECTRA discriminator, which has no MLM head"
        in result.stdout + result.stderr
    )
