"""Task-distillation entries of the config parsed into settings: fields, defaults, checks."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import yaml
from snakemake.utils import validate

from biocompact.entries import parse_entry
from biocompact.finetuning.settings import task_entry
from biocompact.task_distillation.settings import (
    CLASSIFIER_TRAINING,
    ExperimentSettings,
    RandomisedSettings,
    TransferSetSettings,
    classifier_training,
)
from biocompact.taskfiles.settings import FinetuningTask


def _transfer_set(name: str, entry: dict) -> TransferSetSettings:
    """Transfer set ``name`` (its key) parsed as the workflow parses it."""
    where = f"task_distillation.transfer_sets.{name}"
    return parse_entry(TransferSetSettings, {**entry, "name": name}, where)


def _experiment(name: str, entry: dict) -> ExperimentSettings:
    """Experiment ``name`` (its key) parsed as the workflow parses it."""
    where = f"task_distillation.experiments.{name}"
    return parse_entry(ExperimentSettings, {**entry, "name": name}, where)


REPO_ROOT = Path(__file__).resolve().parents[2]
SCHEMA = yaml.safe_load(
    (REPO_ROOT / "workflow/schemas/config.schema.yaml").read_text(encoding="utf-8")
)
SECTION = SCHEMA["properties"]["task_distillation"]["properties"]


def test_the_demo_entries_parse():
    config = yaml.safe_load((REPO_ROOT / "config.yaml").read_text(encoding="utf-8"))[
        "task_distillation"
    ]
    sets = {name: _transfer_set(name, entry) for name, entry in config["transfer_sets"].items()}
    assert sets["general-random"].randomised == RandomisedSettings("demo/general/passages.txt", 200)
    assert [name for name, settings in sets.items() if settings.labelled] == ["re-train-text"]
    experiment = _experiment("demo", config["experiments"]["demo-re-extraction"])
    assert experiment.teacher_key == ("teacher", "demo-re", 1)
    assert experiment.direct_transfer(sets) == ["re-train-text"]
    assert dataclasses.replace(experiment, direct_finetuning=False).direct_transfer(sets) == []


def test_an_experiment_trains_its_task_with_its_own_hyperparameters():
    config = yaml.safe_load((REPO_ROOT / "config.yaml").read_text(encoding="utf-8"))
    validate(config, str(REPO_ROOT / "workflow/schemas/config.schema.yaml"))
    entry = config["task_distillation"]["experiments"]["demo-re-extraction"]
    experiment = _experiment("demo-re-extraction", entry)
    teacher = experiment.task_entry(config, "teacher")
    assert teacher["hyperparameters"] == entry["teacher_training"]
    assert {**teacher, "hyperparameters": None} == {
        **task_entry(config["finetuning"], "demo-re"),
        "hyperparameters": None,
    }
    student = experiment.task_entry(config, "student")
    assert student["hyperparameters"] == entry["student_training"]
    # an evaluation records them as the experiment gives them, in the config's order
    for role, given in (("teacher", teacher), ("student", student)):
        recorded = classifier_training(parse_entry(FinetuningTask, given).training)
        assert list(recorded.items()) == list(entry[f"{role}_training"].items())


def test_the_recorded_classifier_training_is_the_schemas():
    experiment = SECTION["experiments"]["additionalProperties"]["properties"]
    for role in ("teacher", "student"):
        assert tuple(experiment[f"{role}_training"]["properties"]) == CLASSIFIER_TRAINING


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({}, "transfer_sets.t needs either path or randomised"),
        (
            {"path": "a.txt", "randomised": {"source": "b.txt", "examples": 2}},
            "needs either path or randomised",
        ),
        ({"path": "a.txt", "lines": 3}, "transfer_sets.t: unknown setting 'lines'"),
        (
            {"randomised": {"source": "b.txt", "examples": 2, "size": 1}},
            "t.randomised: unknown setting 'size'",
        ),
    ],
)
def test_bad_transfer_sets_are_named(entry, message):
    with pytest.raises(ValueError, match=message):
        _transfer_set("t", entry)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"transfer": []}, "experiments.e: transfer: Tuple should have at least 1 item"),
        ({"temperature": 0}, "experiments.e: temperature: Input should be greater than 0"),
        ({"students": "x"}, "experiments.e: unknown setting 'students'"),
    ],
)
def test_bad_experiments_are_named(change, message):
    entry = {"task": "re", "teacher": "big", "student": "small", "transfer": ["a"], **change}
    with pytest.raises(ValueError, match=message):
        _experiment("e", entry)


def test_a_role_s_hyperparameters_are_the_config_s_in_its_order():
    """The rules' params (compared by Snakemake) hold the config's entry, not the parsed one."""
    config = yaml.safe_load((REPO_ROOT / "config.yaml").read_text(encoding="utf-8"))
    entry = config["task_distillation"]["experiments"]["demo-re-extraction"]
    entry["teacher_training"] = {"learning_rate": 1.0e-4, "epochs": 2}
    validate(config, str(REPO_ROOT / "workflow/schemas/config.schema.yaml"))
    teacher = _experiment("demo-re-extraction", entry).task_entry(config, "teacher")
    assert list(teacher["hyperparameters"].items())[:2] == [
        ("learning_rate", 1.0e-4),
        ("epochs", 2),
    ]
