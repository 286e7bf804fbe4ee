"""Trackers beside TensorBoard, tested with the real packages (MLflow's SQLite store, W&B in
offline mode; skipped where they are not installed): they receive the values of
train_log.jsonl at their steps and the run's parameters (stage, model, task, seed,
hyperparameters, config entry, biocompact commit); a tracker that is not installed is
refused, naming the config key and the pip command."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest
import yaml
from snakemake_runs import OFFLINE_ENV, REPO_ROOT, SNAKEMAKE
from tiny_models import BATCHER, loop_settings, tiny_ner_task, token_dataset, token_mlm

import biocompact.finetuning.train as finetuning_train
from biocompact.entries import parse_entry
from biocompact.pretraining.mlm import MaskedLanguageModelling
from biocompact.taskfiles.settings import FinetuningTask
from biocompact.tracking.tensorboard_events import read_scalars
from biocompact.tracking.trackers import (
    ScalarTrackers,
    TrackingSettings,
    biocompact_commit,
    check_backends,
    flat_params,
    tracking_uri,
)
from biocompact.training.loop import TENSORBOARD_DIR, train
from biocompact.workflow.config_schema import validate_config


def _real(module: str):
    """The installed tracker package (the test skips where it is not installed)."""
    return pytest.importorskip(module)


@pytest.fixture
def offline_wandb(tmp_path, monkeypatch):
    """W&B in offline mode, its files under the test's folder."""
    wandb = _real("wandb")
    monkeypatch.setenv("WANDB_MODE", "offline")
    monkeypatch.setenv("WANDB_SILENT", "true")
    monkeypatch.setenv("WANDB_DIR", str(tmp_path / "wandb-files"))
    (tmp_path / "wandb-files").mkdir()
    return wandb


def _mlflow_run(mlflow, database: Path, run_name: str):
    """The finished MLflow run ``run_name`` of experiment ``study`` in ``database``."""
    mlflow.set_tracking_uri(tracking_uri(str(database)))
    [run] = mlflow.search_runs(
        experiment_names=["study"],
        filter_string=f"attributes.run_name = '{run_name}'",
        output_format="list",
    )
    return run


def _metric_history(mlflow, run) -> dict[tuple[int, str], float]:
    client = mlflow.tracking.MlflowClient()
    return {
        (entry.step, name): entry.value
        for name in run.data.metrics
        for entry in client.get_metric_history(run.info.run_id, name)
    }


def test_mlflow_receives_the_values_of_train_log_and_the_run_parameters(tmp_path):
    mlflow = _real("mlflow")
    database = tmp_path / "ml" / "runs.db"
    tracking = TrackingSettings(("tensorboard", "mlflow"), "study", str(database))
    settings = loop_settings(steps=4, log_every=2, checkpoint_every=4)
    log_path = train(
        MaskedLanguageModelling(token_mlm()),
        token_dataset(n=16),
        BATCHER,
        settings,
        tmp_path / "checkpoints",
        tracking=tracking,
        run_name="pretraining/tiny",
        run_params={
            "stage": "pretraining",
            "model": "tiny",
            "seed": settings.seed,
            "config": {"init": "x"},
        },
    )
    log = [json.loads(line) for line in log_path.read_text().splitlines()]
    expected = {
        (record["step"], f"train/{key}"): value
        for record in log
        for key, value in record.items()
        if key != "step"
    }
    assert [record["step"] for record in log] == [2, 4]
    run = _mlflow_run(mlflow, database, "pretraining/tiny")
    assert _metric_history(mlflow, run) == pytest.approx(expected)
    assert run.data.params == {
        "stage": "pretraining",
        "model": "tiny",
        "seed": str(settings.seed),
        "config.init": "x",
        "commit": biocompact_commit(),
    }
    assert run.data.tags["model"] == "tiny" and run.data.tags["seed"] == str(settings.seed)
    assert run.data.tags["mlflow.source.git.commit"] == biocompact_commit()

    [events] = (tmp_path / "checkpoints" / TENSORBOARD_DIR).glob("*tfevents*")
    assert len(read_scalars(events)) == len(expected)


def test_wandb_gets_the_run_parameters_as_config_and_the_scalars(tmp_path, offline_wandb):
    params = {
        "stage": "finetuning",
        "model": "tiny",
        "task": "ner",
        "seed": 3,
        "hyperparameters": {"learning_rate": 1e-3, "epochs": 1},
        "config": {"family": "ner", "label_names": {"B": "Chemical"}},
    }
    trackers = ScalarTrackers(
        tmp_path / "tb", TrackingSettings(("tensorboard", "wandb"), "study"), "ft/tiny", params
    )
    [tracker] = trackers.trackers
    trackers.add(2, {"train/loss": 1.5})
    trackers.add(4, {"train/loss": 0.5, "dev/f1": 0.25})
    assert tracker.run.config.as_dict() == {**params, "commit": biocompact_commit()}
    assert (tracker.run.project, tracker.run.name, tracker.run.group) == ("study", "ft/tiny", "ft")
    trackers.close()
    offline_wandb.teardown()  # the W&B service writes out the run's file as it stops
    [run_file] = (tmp_path / "wandb-files").glob("wandb/offline-run-*/run-*.wandb")
    records = run_file.read_bytes()  # the offline run's records: the config and the scalars
    assert b"Chemical" in records and b"dev/f1" in records and b"train/loss" in records


def test_nested_parameters_become_dotted_mlflow_params():
    assert flat_params(
        {"seed": 1, "config": {"train": "a.tsv", "folds": None, "grid": {}}, "lr": 5e-5}
    ) == {
        "seed": "1",
        "config.train": "a.tsv",
        "config.folds": "null",
        "config.grid": "{}",
        "lr": "5e-05",
    }


def test_tensorboard_alone_imports_no_tracker(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "wandb", None)  # importing it would raise
    monkeypatch.setitem(sys.modules, "mlflow", None)
    train(
        MaskedLanguageModelling(token_mlm()),
        token_dataset(n=8),
        BATCHER,
        loop_settings(steps=2, log_every=2, checkpoint_every=2),
        tmp_path,
        tracking=TrackingSettings(),
        run_name="pretraining/tiny",
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


def test_the_installed_trackers_pass():
    _real("wandb"), _real("mlflow")
    check_backends(["tensorboard", "wandb", "mlflow"])


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
    """Asking for W&B where it is not installed stops the run before any job (Snakemake run
    in a process where importing wandb fails, as where it is not installed)."""
    (tmp_path / "demo").symlink_to(REPO_ROOT / "demo")
    config = yaml.safe_load((REPO_ROOT / "config.yaml").read_text())
    config["tracking"] = {"backends": ["tensorboard", "wandb"]}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    without_wandb = (
        "import sys; sys.modules['wandb'] = None; from snakemake.cli import main; main()"
    )
    result = subprocess.run(
        [sys.executable, "-c", without_wandb, *SNAKEMAKE[3:], "--directory", str(tmp_path)]
        + ["--configfile", str(tmp_path / "config.yaml"), "-n", "--cores", "1"],
        capture_output=True,
        text=True,
        env=OFFLINE_ENV,
        check=False,
    )
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
    assert parse_entry(TrackingSettings, config["tracking"]) == TrackingSettings(
        ("tensorboard", "mlflow"), "my-study", "results/tracking/mlflow.db"
    )


def test_fine_tuning_sends_its_scalars_and_parameters_to_mlflow(
    pretrained,
    tmp_path,
    repo_root,
):
    mlflow = _real("mlflow")
    database = tmp_path / "ml.db"
    task = parse_entry(
        FinetuningTask, {**tiny_ner_task(repo_root, tmp_path / "ner"), "name": "ner"}
    )
    finetuning_train.finetune(
        finetuning_train.FinetuneRun(
            str(pretrained / "model"),
            task,
            1,
            model_name="tiny",
            tracking=TrackingSettings(("tensorboard", "mlflow"), "study", str(database)),
        ),
        outputs={"metrics": str(tmp_path / "metrics.json"), "predictions": str(tmp_path / "p.tsv")},
    )
    point = "lr0.001-batch16-epochs1"
    run = _mlflow_run(mlflow, database, f"finetuning/tiny/ner/seed1/{point}")
    [events] = (tmp_path / "tensorboard" / point).glob("*tfevents*")
    curves = {(step, tag): value for step, tag, value in read_scalars(events)}
    logged = _metric_history(mlflow, run)
    assert logged.keys() == curves.keys() and ("dev/f1" in {tag for _, tag in logged})
    assert logged == pytest.approx(curves, rel=1e-6)
    tags, params = run.data.tags, run.data.params
    assert (tags["stage"], tags["model"], tags["task"], tags["seed"]) == (
        "finetuning",
        "tiny",
        "ner",
        "1",
    )
    assert tags["mlflow.source.git.commit"] == params["commit"] == biocompact_commit()
    hyperparameters = task.training.as_record()
    assert {key: params[f"hyperparameters.{key}"] for key in hyperparameters} == {
        key: value if isinstance(value, str) else json.dumps(value)
        for key, value in hyperparameters.items()
    }
    assert params["config.train"] == task.train
    assert params["config.label_names.B-ENT"] == "B-Disease"


def test_tracking_settings_have_the_schema_keys_and_defaults():
    schema = yaml.safe_load((REPO_ROOT / "workflow/schemas/config.schema.yaml").read_text())
    section = schema["properties"]["tracking"]["properties"]
    defaults = TrackingSettings()
    assert set(section) == {field.name for field in fields(TrackingSettings)}
    schema_defaults = {key: options["default"] for key, options in section.items()}
    assert parse_entry(TrackingSettings, schema_defaults) == defaults
