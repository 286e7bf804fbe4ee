"""Configured input files and model depths, as checked when the DAG is built."""

from __future__ import annotations

import dataclasses
import json

import pytest

from biocompact.distillation.layer_map import resolve_student_layers
from biocompact.taskfiles.settings import FinetuningTask
from biocompact.workflow.configured_inputs import (
    MissingInputError,
    glob_files,
    local_source_files,
    require_files,
    task_input_files,
)
from biocompact.workflow.model_shapes import (
    architecture_depth,
    checkpoint_depth,
    checkpoint_positions,
    model_depth,
    model_positions,
)


def test_missing_files_are_listed_one_per_line_and_results_are_left_to_the_dag(
    tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "train.tsv").write_text("x\n")
    files = [
        ("a.train", "train.tsv"),
        ("a.test", "test.tsv"),
        ("b.train", "results/data/x/train.tsv"),  # built by the DAG
        ("b.dev", "dev.tsv"),
    ]
    with pytest.raises(MissingInputError) as error:
        require_files(files)
    assert str(error.value).splitlines() == [
        f"config: a.test: file 'test.tsv' does not exist (working directory {tmp_path})",
        f"config: b.dev: file 'dev.tsv' does not exist (working directory {tmp_path})",
    ]


def test_globs_keep_pattern_order_and_sort_each_pattern(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("b.txt", "a.txt", "c.log"):
        (tmp_path / name).write_text("x\n")
    assert glob_files(["c.log", "*.txt"], "k") == ["c.log", "a.txt", "b.txt"]
    with pytest.raises(MissingInputError, match=r"config: k: '\*\.gz' matches no file"):
        glob_files(["*.txt", "*.gz"], "k")


def test_local_source_files_are_checked_only_for_a_folder():
    assert local_source_files("https://ftp.ncbi.nlm.nih.gov/pubmed", ["a.xml.gz"], "k", "x") == []
    assert local_source_files("demo/pubmed", ["a.xml.gz"], "k", "baseline") == [
        ("k", "demo/pubmed/baseline/a.xml.gz")
    ]
    assert local_source_files("file:///data/my%20pmc", ["b.tar.gz"], "k") == [
        ("k", "/data/my pmc/b.tar.gz")
    ]


def test_task_files_name_their_split_and_fold():
    task = FinetuningTask(
        name="x",
        family="re",
        format="blue_tsv",
        train="t/{fold}/train.tsv",
        test="t/{fold}/test.tsv",
        folds=(1, 2),
    )
    task = dataclasses.replace(task, golden="gold.json")
    assert task_input_files("x", task) == [
        ("finetuning.tasks.x.train (fold 1)", "t/1/train.tsv"),
        ("finetuning.tasks.x.test (fold 1)", "t/1/test.tsv"),
        ("finetuning.tasks.x.train (fold 2)", "t/2/train.tsv"),
        ("finetuning.tasks.x.test (fold 2)", "t/2/test.tsv"),
        ("finetuning.tasks.x.golden", "gold.json"),
    ]


def test_student_layers_must_be_layers_of_the_teacher():
    assert resolve_student_layers(6, None) == [0, 2, 4]
    assert resolve_student_layers(5, None) == [0, 2, 4]
    assert resolve_student_layers(6, [0, 3, 5]) == [0, 3, 5]
    with pytest.raises(ValueError, match=r"\[0, 3, 6\] must name layers 0\.\.5 of the 6-layer"):
        resolve_student_layers(6, [0, 3, 6])
    with pytest.raises(ValueError, match="must name layers"):
        resolve_student_layers(6, [])


def test_architecture_depth_from_preset_or_override():
    assert architecture_depth({"preset": "demo-4L-256"}) == 4
    assert architecture_depth({"preset": "demo-4L-256", "num_hidden_layers": 2}) == 2
    assert architecture_depth({"hidden_size": 64}) is None
    assert architecture_depth(None) is None


def test_checkpoint_depth_reads_config_json(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"num_hidden_layers": 6}))
    assert checkpoint_depth(str(tmp_path), "k") == 6
    assert checkpoint_depth("namespace/hub-model", "k") is None
    (tmp_path / "config.json").write_text("{}")
    assert checkpoint_depth(str(tmp_path), "k") is None
    (tmp_path / "config.json").write_text("{")
    with pytest.raises(ValueError, match="config: k: .*config.json is not valid JSON"):
        checkpoint_depth(str(tmp_path), "k")


def test_model_depth_follows_teachers_and_students(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"num_hidden_layers": 12}))
    config = {
        "pretraining": {
            "big": {"init": "scratch", "architecture": {"preset": "bioformer-8L"}},
            "continued": {"init": str(tmp_path), "architecture": {}},
        },
        "distillation": {
            "half": {"teacher": "big", "student_init": "teacher_layers", "student_layers": None},
            "chosen": {
                "teacher": "big",
                "student_init": "teacher_layers",
                "student_layers": [0, 7],
            },
            "of-half": {"teacher": "half", "student_init": "half", "student_layers": None},
            "fresh": {
                "teacher": "big",
                "student_init": "random",
                "student_architecture": {"preset": "demo-2L-128"},
            },
            "from-folder": {"teacher": "big", "student_init": str(tmp_path)},
        },
        "external_models": {"hub": "namespace/model"},
    }
    depths = {name: model_depth(name, config) for name in ("big", "continued", "hub")}
    depths |= {name: model_depth(name, config) for name in config["distillation"]}
    assert depths == {
        "big": 8,
        "continued": 12,
        "hub": None,
        "half": 4,  # layers 0, 2, 4, 6 of 8
        "chosen": 2,
        "of-half": 4,
        "fresh": 2,
        "from-folder": 12,
    }


@pytest.mark.parametrize(
    ("checkpoint", "positions"),
    [
        ({"model_type": "bert", "max_position_embeddings": 512}, 512),
        ({"model_type": "roberta", "max_position_embeddings": 514, "pad_token_id": 1}, 512),
        ({"model_type": "modernbert", "max_position_embeddings": 8192}, 8192),
    ],
)
def test_checkpoint_positions_are_its_usable_length(tmp_path, checkpoint, positions):
    (tmp_path / "config.json").write_text(json.dumps(checkpoint))
    assert checkpoint_positions(str(tmp_path), "k") == positions


def test_model_positions_come_from_checkpoints_only(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"max_position_embeddings": 128}))
    config = {
        "pretraining": {
            "scratch": {"init": "scratch"},
            "continued": {"init": str(tmp_path)},
        },
        "distillation": {
            "cut": {"teacher": "continued", "student_init": "teacher_layers"},
            "fresh": {"teacher": "continued", "student_init": "random"},
        },
        "external_models": {"ext": str(tmp_path), "hub": "namespace/model"},
    }
    names = ("scratch", "continued", "cut", "fresh", "ext", "hub")
    assert {name: model_positions(name, config) for name in names} == {
        "scratch": None,
        "continued": 128,
        "cut": 128,
        "fresh": None,
        "ext": 128,
        "hub": None,
    }
