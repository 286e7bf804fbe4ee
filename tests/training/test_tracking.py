"""Trackers beside TensorBoard: W&B and MLflow (fakes standing in for the optional
packages) receive the values of train_log.jsonl at their steps; a tracker that is not
installed is refused, naming the config key and the pip command."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
import types
from dataclasses import fields
from importlib.machinery import ModuleSpec
from pathlib import Path

import pytest
import yaml
from snakemake_runs import REPO_ROOT, run_snakemake
from tiny_models import BATCHER, loop_settings, tiny_ner_task, token_dataset, token_mlm

import biocompact.finetuning.train as finetuning_train
from biocompact.config_schema import validate_config
from biocompact.finetuning.settings import FinetuningTask
from biocompact.pretraining.mlm import MaskedLanguageModelling
from biocompact.tensorboard_events import read_scalars
from biocompact.tracking import TrackingSettings, check_backends, tracking_uri
from biocompact.training.loop import TENSORBOARD_DIR, train


class FakeWandbRun:
    def __init__(self, calls: list) -> None:
        self.calls = calls

    def log(self, data: dict, step: int) -> None:
        self.calls.append(("log", step, data))

    def finish(self) -> None:
        self.calls.append(("finish",))


def _fake_wandb(calls: list) -> types.ModuleType:
    module = types.ModuleType("wandb")

    def init(**kwargs) -> FakeWandbRun:
        calls.append(("init", kwargs))
        return FakeWandbRun(calls)

    module.init = init
    return module


def _fake_mlflow(calls: list) -> types.ModuleType:
    module = types.ModuleType("mlflow")
    module.set_tracking_uri = lambda uri: calls.append(("set_tracking_uri", uri))
    module.set_experiment = lambda name: calls.append(("set_experiment", name))
    module.start_run = lambda run_name: calls.append(("start_run", run_name))
    module.log_metrics = lambda metrics, step: calls.append(("log_metrics", step, metrics))
    module.end_run = lambda: calls.append(("end_run",))
    return module


def test_trackers_receive_the_values_of_train_log(tmp_path, monkeypatch):
    wandb_calls, mlflow_calls = [], []
    monkeypatch.setitem(sys.modules, "wandb", _fake_wandb(wandb_calls))
    monkeypatch.setitem(sys.modules, "mlflow", _fake_mlflow(mlflow_calls))
    tracking = TrackingSettings(
        ("tensorboard", "wandb", "mlflow"), "study", str(tmp_path / "ml" / "runs.db")
    )
    log_path = train(
        MaskedLanguageModelling(token_mlm()),
        token_dataset(n=16),
        BATCHER,
        loop_settings(steps=4, log_every=2, checkpoint_every=4),
        tmp_path / "checkpoints",
        tracking,
        "pretraining/tiny",
    )
    log = [json.loads(line) for line in log_path.read_text().splitlines()]
    expected = [
        (record["step"], {f"train/{k}": v for k, v in record.items() if k != "step"})
        for record in log
    ]
    assert [record["step"] for record in log] == [2, 4]

    [init, *logged, finish] = wandb_calls
    assert init == (
        "init",
        {
            "project": "study",
            "name": "pretraining/tiny",
            "group": "pretraining",
            "dir": str(tmp_path / "checkpoints" / TENSORBOARD_DIR),
        },
    )
    assert [(step, data) for _, step, data in logged] == expected
    assert finish == ("finish",)

    assert mlflow_calls[:3] == [
        ("set_tracking_uri", f"sqlite:///{(tmp_path / 'ml' / 'runs.db').resolve()}"),
        ("set_experiment", "study"),
        ("start_run", "pretraining/tiny"),
    ]
    assert [(step, data) for _, step, data in mlflow_calls[3:-1]] == expected
    assert mlflow_calls[-1] == ("end_run",)
    assert (tmp_path / "ml").is_dir()  # the database's folder, made for it

    [events] = (tmp_path / "checkpoints" / TENSORBOARD_DIR).glob("*tfevents*")
    assert len(read_scalars(events)) == sum(len(scalars) for _, scalars in expected)


def test_tensorboard_alone_imports_no_tracker(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "wandb", None)  # importing it would raise
    monkeypatch.setitem(sys.modules, "mlflow", None)
    train(
        MaskedLanguageModelling(token_mlm()),
        token_dataset(n=8),
        BATCHER,
        loop_settings(steps=2, log_every=2, checkpoint_every=2),
        tmp_path,
        TrackingSettings(),
        "pretraining/tiny",
    )
    assert list((tmp_path / TENSORBOARD_DIR).glob("*tfevents*"))


@pytest.mark.parametrize(("backend", "package"), [("wandb", "wandb"), ("mlflow", "mlflow")])
def test_a_tracker_that_is_not_installed_is_named_with_its_pip_command(
    backend, package, monkeypatch
):
    monkeypatch.setitem(sys.modules, backend, None)  # find_spec: not installed
    with pytest.raises(ValueError) as error:
        check_backends(["tensorboard", backend])
    assert str(error.value) == (
        f"config: tracking.backends names {backend!r}, but {backend} is not installed: "
        f"pip install {package} (or pip install '.[tracking]')"
    )


def test_an_installed_tracker_passes(monkeypatch):
    wandb = _fake_wandb([])
    wandb.__spec__ = ModuleSpec("wandb", None)  # what find_spec reports of an imported module
    monkeypatch.setitem(sys.modules, "wandb", wandb)
    check_backends(["tensorboard", "wandb"])


@pytest.mark.parametrize(
    ("location", "uri"),
    [
        ("file:///srv/mlruns", "file:///srv/mlruns"),
        ("http://tracking.example:5000", "http://tracking.example:5000"),
        ("databricks://profile", "databricks://profile"),
        ("sqlite:////srv/mlflow.db", "sqlite:////srv/mlflow.db"),
        ("/srv/mlflow.db", "sqlite:////srv/mlflow.db"),
    ],
)
def test_tracking_uri_keeps_a_uri_and_makes_a_path_a_sqlite_database(location, uri):
    assert tracking_uri(location) == uri


def test_a_relative_path_is_a_database_under_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    database = Path(tmp_path, "results/tracking/mlflow.db").resolve()
    assert tracking_uri("results/tracking/mlflow.db") == f"sqlite:///{database}"


def test_a_missing_tracker_stops_the_dag_build(tmp_path):
    """Asking for W&B where it is not installed stops the run before any job."""
    if importlib.util.find_spec("wandb") is not None:
        pytest.skip("wandb is installed here")
    (tmp_path / "demo").symlink_to(REPO_ROOT / "demo")
    config = yaml.safe_load((REPO_ROOT / "config.yaml").read_text())
    config["tracking"] = {"backends": ["tensorboard", "wandb"]}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    result = run_snakemake(tmp_path, "-n", "--cores", "1")
    assert result.returncode != 0
    assert (
        "config: tracking.backends names 'wandb', but wandb is not installed: pip install wandb"
        in result.stdout + result.stderr
    )


def test_the_documented_tracking_section_is_valid_and_read_as_it_says():
    """docs/outputs.md's tracking block passes the schema, which fills in the MLflow store."""
    outputs = (REPO_ROOT / "docs/outputs.md").read_text()
    [block] = re.findall(r"^```yaml\n(tracking:.*?)^```", outputs, re.S | re.M)
    config = yaml.safe_load(block)
    schema = yaml.safe_load((REPO_ROOT / "workflow/schemas/config.schema.yaml").read_text())
    validate_config(config, schema, [("docs/outputs.md", config)])
    assert TrackingSettings.from_config(config["tracking"]) == TrackingSettings(
        ("tensorboard", "mlflow"), "my-study", "results/tracking/mlflow.db"
    )


def test_fine_tuning_sends_its_tensorboard_scalars_to_the_tracker(
    pretrained,
    tmp_path,
    repo_root,
    monkeypatch,
):
    calls = []
    monkeypatch.setitem(sys.modules, "mlflow", _fake_mlflow(calls))
    task = tiny_ner_task(repo_root, tmp_path / "ner")
    finetuning_train.finetune(
        finetuning_train.FinetuneRun(
            str(pretrained / "model"),
            FinetuningTask.from_entry({**task, "name": "ner"}),
            1,
            model_name="tiny",
            tracking=TrackingSettings(("tensorboard", "mlflow"), "study", str(tmp_path / "ml.db")),
        ),
        outputs={"metrics": str(tmp_path / "metrics.json"), "predictions": str(tmp_path / "p.tsv")},
    )
    point = "lr0.001-batch16-epochs1"
    assert calls[2] == ("start_run", f"finetuning/tiny/ner/seed1/{point}")
    assert calls[-1] == ("end_run",)
    logged = {
        (step, tag): value for _, step, metrics in calls[3:-1] for tag, value in metrics.items()
    }
    [events] = (tmp_path / "tensorboard" / point).glob("*tfevents*")
    curves = {(step, tag): value for step, tag, value in read_scalars(events)}
    assert logged.keys() == curves.keys() and ("dev/f1" in {tag for _, tag in logged})
    for key, value in logged.items():
        assert curves[key] == pytest.approx(value, rel=1e-6), key


def test_tracking_settings_have_the_schema_keys_and_defaults():
    schema = yaml.safe_load((REPO_ROOT / "workflow/schemas/config.schema.yaml").read_text())
    section = schema["properties"]["tracking"]["properties"]
    defaults = TrackingSettings()
    assert set(section) == {field.name for field in fields(TrackingSettings)}
    schema_defaults = {key: options["default"] for key, options in section.items()}
    assert TrackingSettings.from_config(schema_defaults) == defaults
