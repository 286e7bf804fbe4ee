"""Fine-tuning tasks resolved from the config (preset, dataset recipe, task, model overrides)
into entries and parsed back: the order of the settings, the checks, every config's tasks."""

from __future__ import annotations

import copy
import dataclasses
import itertools
import json
from pathlib import Path

import pytest
import yaml
from snakemake.utils import validate
from snakemake_runs import layer_config

from biocompact.entries import parse_entry
from biocompact.finetuning.settings import check_model_overrides, resolve_task, task_entry
from biocompact.taskfiles.settings import FinetuningTask, Hyperparameters

REPO_ROOT = Path(__file__).resolve().parents[2]
SCHEMA = REPO_ROOT / "workflow" / "schemas" / "config.schema.yaml"


@pytest.fixture
def finetuning() -> dict:
    """The demo's finetuning section, validated (defaults filled in)."""
    config = yaml.safe_load((REPO_ROOT / "config.yaml").read_text(encoding="utf-8"))
    validate(config, str(SCHEMA))
    return config["finetuning"]


def test_hyperparameters_are_the_preset_then_the_task_then_the_model(finetuning):
    finetuning["tasks"]["demo-re"]["hyperparameters"] = {"epochs": 2, "learning_rate": 1e-4}
    finetuning["model_overrides"] = {"student": {"learning_rate": 3e-4}}
    before = copy.deepcopy(finetuning)
    task = resolve_task(finetuning, "demo-re", model="student")
    assert finetuning == before  # the config is read, never changed
    preset = finetuning["presets"]["demo"]
    assert task.hyperparameters == parse_entry(
        Hyperparameters, {**preset, "epochs": 2, "learning_rate": 3e-4}
    )
    assert resolve_task(finetuning, "demo-re", model="teacher").training.learning_rate == 1e-4
    assert (task.name, task.family, task.preset) == ("demo-re", "re", "demo")
    assert task.label_names == {"0": "no-association", "1": "gene-disease-association"}
    assert task.as_entry() == task_entry(finetuning, "demo-re", model="student")
    assert "hyperparameters" not in task_entry(finetuning, "demo-re", training=False)
    data = resolve_task(finetuning, "demo-re", training=False)
    assert data.hyperparameters is None and dataclasses.replace(task, hyperparameters=None) == data
    with pytest.raises(ValueError, match="'demo-re' was read without its hyperparameters"):
        _ = data.training
    own = resolve_task(finetuning, "demo-re", hyperparameters={"epochs": 5})
    assert own.hyperparameters == Hyperparameters(epochs=5)


def test_a_task_naming_a_dataset_is_filled_in_on_read(finetuning):
    finetuning["tasks"] = {"ncbi": {"dataset": "ncbi-disease", "preset": "demo"}}
    validate({"finetuning": finetuning}, str(SCHEMA))
    entry = task_entry(finetuning, "ncbi")
    assert (entry["family"], entry["format"]) == ("ner", "biobert_tsv")
    assert entry["train"].startswith("results/data/ncbi-disease/")
    assert "family" not in finetuning["tasks"]["ncbi"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"preset": "nope"}, "tasks.demo-re.preset 'nope' is not in finetuning.presets"),
        (
            {"hyperparameters": {"warmup_ratio": 1.0}},
            "tasks.demo-re.hyperparameters: warmup_ratio: Input should be less than 1",
        ),
        (
            {"hyperparameters": {"lerning_rate": 1.0}},
            "tasks.demo-re.hyperparameters: unknown setting 'lerning_rate'",
        ),
        (
            {"hyperparameters": {"grid": {"weight_decay": [0.1]}}},
            r"tasks.demo-re.hyperparameters: grid: \['weight_decay'\] cannot vary",
        ),
    ],
)
def test_bad_tasks_are_named(finetuning, change, message):
    finetuning["tasks"]["demo-re"].update(change)
    with pytest.raises(ValueError, match=message):
        task_entry(finetuning, "demo-re")


def _layers(name: str) -> list[str]:
    """The config files that the command in config file ``name``'s header runs with, later
    over earlier (``name`` alone where its header has none)."""
    text = (REPO_ROOT / name).read_text(encoding="utf-8")
    header = "".join(line[1:] for line in text.splitlines(keepends=True) if line.startswith("#"))
    for line in header.replace("\\\n", " ").splitlines():
        words = line.split()
        if words[:1] == ["snakemake"] and "--configfile" in words:
            after = words[words.index("--configfile") + 1 :]
            return list(itertools.takewhile(lambda word: word.endswith(".yaml"), after))
    return [name]


def _configured_tasks() -> list[tuple[str, dict, str]]:
    """(config file, the finetuning section it runs with, validated, task) for every task
    of the demo config and of configs/*.yaml."""
    configs = sorted((REPO_ROOT / "configs").glob("*.yaml"))
    tasks = []
    for name in ["config.yaml", *(f"configs/{path.name}" for path in configs)]:
        config: dict = {}
        for layer in _layers(name):
            layer_config(config, yaml.safe_load((REPO_ROOT / layer).read_text(encoding="utf-8")))
        finetuning = {"finetuning": config.get("finetuning", {})}
        validate(finetuning, str(SCHEMA))
        tasks += [
            (name, finetuning["finetuning"], task) for task in finetuning["finetuning"]["tasks"]
        ]
    return tasks


CONFIGURED_TASKS = _configured_tasks()


def test_tasks_of_every_config_are_read_from_the_configs():
    # the demo's two tasks and more than one config's own
    assert [task for name, _, task in CONFIGURED_TASKS if name == "config.yaml"] == [
        "demo-ner",
        "demo-re",
    ]
    assert len({name for name, _, _ in CONFIGURED_TASKS}) > 3


@pytest.mark.parametrize(
    ("name", "finetuning", "task"),
    CONFIGURED_TASKS,
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_a_task_as_an_entry_parses_back_to_the_same_task(name, finetuning, task):
    for training in (True, False):
        parsed = parse_entry(FinetuningTask, task_entry(finetuning, task, training=training))
        entry = parsed.as_entry()
        assert parse_entry(FinetuningTask, entry) == parsed
        assert json.loads(json.dumps(entry)) == entry  # plain values
    # a field the demo leaves unset, set
    folds = dataclasses.replace(parsed, folds=("a", 1), positive_labels=("yes",))
    assert parse_entry(FinetuningTask, folds.as_entry()) == folds


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"nobody": {}}, "model_overrides names 'nobody', which is not a model of this config"),
        ({"student": {"lerning_rate": 1}}, r"student: \['lerning_rate'\] are not settings of a"),
    ],
)
def test_model_overrides_name_models_and_preset_settings(finetuning, overrides, message):
    finetuning["model_overrides"] = overrides
    with pytest.raises(ValueError, match=message):
        check_model_overrides(finetuning, ["teacher", "student"])
