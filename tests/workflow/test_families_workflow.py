"""The model families end to end: configs/families-demo.yaml through fine-tuning into the
report, its fine-tuning on a cut of the task."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml
from snakemake_runs import run_snakemake
from tiny_models import save_modernbert
from transformers import AutoModelForMaskedLM, AutoTokenizer, ModernBertForMaskedLM

REPO_ROOT = Path(__file__).resolve().parents[2]
CONFIG = REPO_ROOT / "configs" / "families-demo.yaml"


# a ModernBERT checkpoint made here (none ships in a package) that pretraining continues
CHECKPOINT = "checkpoints/tiny-modernbert"
CONTINUED = {
    "vocabularies": {"modernbert-checkpoint": {"type": "pretrained", "checkpoint": CHECKPOINT}},
    "pretraining": {
        "modernbert-continued": {
            "vocabulary": "modernbert-checkpoint",
            "init": CHECKPOINT,
            "family": "modernbert",
            "steps": 5,
            "batch_size": 16,
            "learning_rate": 1.0e-3,
            "resources": {"cpus_per_gpu": 1},
        }
    },
}


@pytest.fixture(scope="module")
def families_run(tmp_path_factory) -> Path:
    workdir = tmp_path_factory.mktemp("families")
    config = yaml.safe_load(CONFIG.read_text())
    for section, entries in CONTINUED.items():
        config[section].update(entries)
    # fine-tuning on a cut of the task: each family's run and report row, not its score
    config["finetuning"]["tasks"]["demo-ner"].update(
        max_train_examples=96, max_dev_examples=48, max_test_examples=48
    )
    (workdir / "config.yaml").write_text(yaml.safe_dump(config))
    save_modernbert(workdir / CHECKPOINT, {"preset": "demo-2L-128"}, REPO_ROOT)
    shutil.copytree(REPO_ROOT / "demo", workdir / "demo")
    result = run_snakemake(workdir, "--cores", "2")
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
        "modernbert-mlm": ("modernbert", "mlm"),
        "modernbert-continued": ("modernbert", "mlm"),
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
def test_modernbert_models_reload_with_their_vocabulary_and_attention_pattern(families_run):
    """Saved with its tokenizer: Auto classes reload each ModernBERT; the student keeps the
    global and local layers it was given, and the continued model its checkpoint's vocabulary."""
    folders = {
        name: families_run / f"results/{stage}/{name}/model"
        for stage, name in [
            ("pretraining", "modernbert-mlm"),
            ("pretraining", "modernbert-continued"),
            ("distillation", "modernbert-student"),
        ]
    }
    layer_types = {}
    for name, folder in folders.items():
        model = AutoModelForMaskedLM.from_pretrained(folder)
        tokenizer = AutoTokenizer.from_pretrained(folder)
        assert isinstance(model, ModernBertForMaskedLM)
        encoded = tokenizer("BRCA1 mutations", "tumour")
        assert tokenizer.convert_ids_to_tokens(encoded["input_ids"])[0] == "[CLS]"
        assert (
            "token_type_ids" not in encoded and model.config.pad_token_id == tokenizer.pad_token_id
        )
        layer_types[name] = model.config.layer_types
    assert layer_types["modernbert-mlm"] == ["full_attention", "sliding_attention"] * 2
    assert layer_types["modernbert-student"] == ["full_attention", "sliding_attention"]
    checkpoint = AutoTokenizer.from_pretrained(families_run / CHECKPOINT)
    continued = AutoTokenizer.from_pretrained(folders["modernbert-continued"])
    assert continued.get_vocab() == checkpoint.get_vocab()
    student = json.loads(
        (families_run / "results/distillation/modernbert-student/eval.json").read_text()
    )
    assert student["architecture"]["model_type"] == "modernbert"


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
    result = run_snakemake(tmp_path, "-n")
    assert result.returncode != 0
    assert (
        "'electra-wordpiece' is an ELECTRA discriminator, which has no MLM head"
        in result.stdout + result.stderr
    )
