"""Saved models are the trained models: reloaded from their folders, they give the logits the
in-memory model gave before saving (pretraining, distillation and fine-tuning saves), and
every metrics file's primary value is what its predictions file scores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from prediction_scores import scores_from_predictions
from tiny_models import HYPERPARAMETERS, MINILM, TINY, save_demo_corpus
from transformers import (
    AutoModelForMaskedLM,
    AutoModelForSequenceClassification,
    AutoTokenizer,
    BertConfig,
    BertForMaskedLM,
)

import biocompact.distillation.run as distillation_run
import biocompact.finetuning.train as finetuning_train
import biocompact.pretraining.run as pretraining_run
from biocompact.distillation.settings import DistillationSettings
from biocompact.entries import parse_entry
from biocompact.finetuning.tasks import get_family
from biocompact.finetuning.train import FinetuneRun
from biocompact.pretraining.settings import PretrainingSettings
from biocompact.taskfiles.settings import FinetuningTask, Hyperparameters
from biocompact.training.settings import MaskingSettings

TRAINING = {
    "steps": 3,
    "batch_size": 4,
    "learning_rate": 1e-3,
    "log_every": 3,
    "checkpoint_every": 3,
}


def _lines(path: Path, count: int) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines(keepends=True)[:count]


@pytest.fixture(scope="module")
def teacher_and_corpus(tmp_path_factory, repo_root) -> tuple[Path, Path]:
    """A tiny BERT MLM with the MiniLM WordPiece vocabulary and a packed corpus of demo text."""
    folder = tmp_path_factory.mktemp("saved")
    tokenizer = AutoTokenizer.from_pretrained(MINILM)
    config = BertConfig(vocab_size=len(tokenizer), max_position_embeddings=64, **TINY)
    torch.manual_seed(0)  # the same teacher every run
    BertForMaskedLM(config).save_pretrained(folder / "teacher")
    tokenizer.save_pretrained(folder / "teacher")
    return folder / "teacher", save_demo_corpus(folder / "corpus", tokenizer, repo_root)


def _capture_objective(monkeypatch, module) -> list:
    """Record the objective that ``module`` hands to ``train_and_publish``."""
    captured = []
    publish = module.train_and_publish

    def recording(objective, *args, **kwargs):
        captured.append(objective)
        return publish(objective, *args, **kwargs)

    monkeypatch.setattr(module, "train_and_publish", recording)
    return captured


def _mlm_logits(model: torch.nn.Module, tokenizer) -> torch.Tensor:
    inputs = tokenizer(
        ["BRCA1 mutations cause breast [MASK].", "Insulin treats diabetes."],
        padding=True,
        return_tensors="pt",
    )
    with torch.no_grad():
        return model.eval()(**inputs).logits


def _outputs(folder: Path) -> dict[str, str]:
    return {
        "model": str(folder / "model"),
        "log": str(folder / "log.jsonl"),
        "eval": str(folder / "eval.json"),
    }


def test_pretrained_model_reloads_with_the_same_logits(teacher_and_corpus, tmp_path, monkeypatch):
    teacher, corpus = teacher_and_corpus
    captured = _capture_objective(monkeypatch, pretraining_run)
    settings = parse_entry(
        PretrainingSettings, {"vocabulary": "minilm", "architecture": TINY, **TRAINING}
    )
    pretraining_run.run_pretraining(
        pretraining_run.PretrainingSpec(
            name="tiny",
            settings=settings,
            dataset_dir=str(corpus),
            tokenizer_dir=str(teacher),
            outputs=_outputs(tmp_path),
            checkpoint_dir=str(tmp_path / "checkpoints"),
            masking=MaskingSettings(),
            max_seq_length=32,
            probes=(),
            threads=1,
        )
    )
    [objective] = captured
    tokenizer = AutoTokenizer.from_pretrained(tmp_path / "model")
    trained = _mlm_logits(objective.model_to_save(), tokenizer)
    reloaded = _mlm_logits(AutoModelForMaskedLM.from_pretrained(tmp_path / "model"), tokenizer)
    untrained = _mlm_logits(
        BertForMaskedLM(BertConfig(vocab_size=len(tokenizer), **TINY)), tokenizer
    )
    assert not torch.allclose(trained, untrained)  # the comparison can tell models apart
    torch.testing.assert_close(reloaded, trained, rtol=0, atol=1e-5)


def test_distilled_student_reloads_with_the_same_logits(teacher_and_corpus, tmp_path, monkeypatch):
    teacher, corpus = teacher_and_corpus
    captured = _capture_objective(monkeypatch, distillation_run)
    entry = {"teacher": "teacher", "method": "distilbert", "student_layers": [0], **TRAINING}
    distillation_run.run_distillation(
        distillation_run.DistillationSpec(
            name="student",
            settings=parse_entry(DistillationSettings, entry),
            teacher_dir=str(teacher),
            dataset_dir=str(corpus),
            outputs=_outputs(tmp_path),
            checkpoint_dir=str(tmp_path / "checkpoints"),
            masking=MaskingSettings(),
            probes=(),
            threads=1,
        )
    )
    [objective] = captured
    tokenizer = AutoTokenizer.from_pretrained(tmp_path / "model")
    reloaded = AutoModelForMaskedLM.from_pretrained(tmp_path / "model")
    assert reloaded.config.num_hidden_layers == 1
    trained = _mlm_logits(objective.model_to_save(), tokenizer)
    torch.testing.assert_close(_mlm_logits(reloaded, tokenizer), trained, rtol=0, atol=1e-5)
    teacher_logits = _mlm_logits(AutoModelForMaskedLM.from_pretrained(teacher), tokenizer)
    assert not torch.allclose(trained, teacher_logits)


def _task(repo_root: Path, folder: Path, family: str, files: dict[str, tuple[str, int]]) -> dict:
    """A slice of a demo task: split -> (demo file, how many lines)."""
    folder.mkdir()
    for split, (name, count) in files.items():
        lines = _lines(repo_root / "demo/tasks" / family / name, count)
        ending = "\n\n" if family == "ner" else "\n"  # NER: a blank line after each sentence
        (folder / f"{split}.tsv").write_text("".join(lines).rstrip("\n") + ending, encoding="utf-8")
    return {
        "name": f"tiny-{family}",
        "family": family,
        "format": "biobert_tsv",
        **{split: str(folder / f"{split}.tsv") for split in files},
        "hyperparameters": HYPERPARAMETERS,
    }


def test_fine_tuned_model_reloads_with_the_same_logits_and_metrics_match_predictions(
    teacher_and_corpus, tmp_path, monkeypatch, repo_root
):
    teacher, _ = teacher_and_corpus
    task = _task(
        repo_root,
        tmp_path / "re",
        "re",
        {"train": ("train.tsv", 80), "dev": ("dev.tsv", 20), "test": ("test.tsv", 41)},
    )
    test_logits = []
    predict = finetuning_train.predict_logits

    def recording(model, family, tokenizer, data, hyperparameters, seed):
        test_logits.append((data, predict(model, family, tokenizer, data, hyperparameters, seed)))
        return test_logits[-1][1]

    monkeypatch.setattr(finetuning_train, "predict_logits", recording)
    finetuning_train.finetune(
        FinetuneRun(str(teacher), parse_entry(FinetuningTask, task), 1),
        outputs={
            "metrics": str(tmp_path / "metrics.json"),
            "predictions": str(tmp_path / "predictions.tsv"),
            "model": str(tmp_path / "model"),
        },
    )
    [(test, trained)] = test_logits
    reloaded = AutoModelForSequenceClassification.from_pretrained(tmp_path / "model")
    family = get_family("re", "biobert_tsv")
    tokenizer = AutoTokenizer.from_pretrained(tmp_path / "model")
    again = predict(
        reloaded, family, tokenizer, test, parse_entry(Hyperparameters, HYPERPARAMETERS), 1
    )
    assert again.shape == trained.shape == (40, 2)
    torch.testing.assert_close(torch.as_tensor(again), torch.as_tensor(trained), rtol=0, atol=1e-5)
    record = json.loads((tmp_path / "metrics.json").read_text())
    recomputed = scores_from_predictions(
        tmp_path / "metrics.json", tmp_path / "predictions.tsv", task
    )
    assert record["primary_metric"] in recomputed and 0 < record["metrics"]["accuracy"] < 1
    assert record["metrics"] == pytest.approx(recomputed, abs=1e-12)


def test_ner_metrics_match_predictions(teacher_and_corpus, tmp_path, repo_root):
    teacher, _ = teacher_and_corpus
    task = _task(
        repo_root,
        tmp_path / "ner",
        "ner",
        {"train": ("train.tsv", 400), "dev": ("devel.tsv", 100), "test": ("test.tsv", 150)},
    )
    task["hyperparameters"] = {
        **HYPERPARAMETERS,
        "learning_rate": 1e-7,
    }  # varied untrained tags: F1 above 0
    finetuning_train.finetune(
        FinetuneRun(str(teacher), parse_entry(FinetuningTask, task), 1),
        outputs={
            "metrics": str(tmp_path / "metrics.json"),
            "predictions": str(tmp_path / "predictions.tsv"),
        },
    )
    record = json.loads((tmp_path / "metrics.json").read_text())
    recomputed = scores_from_predictions(
        tmp_path / "metrics.json", tmp_path / "predictions.tsv", task
    )
    assert record["primary_metric"] == "f1" and record["metrics"]["f1"] > 0
    assert record["metrics"] == pytest.approx(recomputed, abs=1e-12)
