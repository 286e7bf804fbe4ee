"""Experiment trackers beside the TensorBoard event files: the config's ``tracking`` section
adds Weights & Biases or MLflow, fed the same scalars at the same steps.

Both are optional extras (``pip install 'biocompact[tracking]'``), imported only when a job
opens a tracker; ``check_backends`` refuses a backend that is not installed when the DAG is
built. W&B follows its own environment (``WANDB_MODE=offline``, ``WANDB_DIR``); MLflow
writes to ``mlflow_uri``, a local SQLite database under results/ by default (MLflow 3.13 and
later refuse a ``file:`` store).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from biocompact.tensorboard_events import ScalarWriter

# backend -> (module it imports, pip package that installs it); tensorboard is built in
OPTIONAL_BACKENDS = {"wandb": ("wandb", "wandb"), "mlflow": ("mlflow", "mlflow")}


@dataclass(frozen=True)
class TrackingSettings:
    """The config's ``tracking`` section (the schema fills in its defaults)."""

    backends: tuple[str, ...] = ("tensorboard",)
    project: str = "biocompact"  # the W&B project, the MLflow experiment
    mlflow_uri: str = "results/tracking/mlflow.db"  # a file (a local SQLite store) or a URI

    @classmethod
    def from_config(cls, section: Mapping[str, Any]) -> TrackingSettings:
        return cls(
            backends=tuple(section["backends"]),
            project=section["project"],
            mlflow_uri=section["mlflow_uri"],
        )


def check_backends(backends: Sequence[str], key: str = "tracking.backends") -> None:
    """Refuse a tracker that is not installed, naming ``key`` and the pip command."""
    for backend in backends:
        if backend not in OPTIONAL_BACKENDS:
            continue
        module, package = OPTIONAL_BACKENDS[backend]
        if importlib.util.find_spec(module) is None:
            raise ValueError(
                f"config: {key} names {backend!r}, but {module} is not installed: "
                f"pip install {package} (or pip install '.[tracking]')"
            )


def is_uri(location: str) -> bool:
    """Whether ``location`` names its scheme (``sqlite:///...``, ``http://...``)."""
    return "://" in location or location.startswith("file:")


def tracking_uri(location: str) -> str:
    """An MLflow tracking URI: ``location`` as it is when it is a URI, else the SQLite
    database at that path (absolute, so every job's working directory finds it)."""
    return location if is_uri(location) else f"sqlite:///{Path(location).resolve()}"


class Tracker(Protocol):
    def add(self, step: int, scalars: Mapping[str, float]) -> None: ...

    def close(self) -> None: ...


class WandbTracker:
    """One W&B run (``wandb.init``), logged at the training step."""

    def __init__(self, settings: TrackingSettings, run_name: str, folder: Path) -> None:
        wandb = importlib.import_module("wandb")
        self.run = wandb.init(
            project=settings.project,
            name=run_name,
            group=run_name.split("/", 1)[0],
            dir=os.environ.get("WANDB_DIR", str(folder)),
        )

    def add(self, step: int, scalars: Mapping[str, float]) -> None:
        self.run.log(dict(scalars), step=step)

    def close(self) -> None:
        self.run.finish()


class MlflowTracker:
    """One MLflow run of the experiment ``project``, its metrics logged at the training step."""

    def __init__(self, settings: TrackingSettings, run_name: str, folder: Path) -> None:
        self.mlflow = importlib.import_module("mlflow")
        if not is_uri(settings.mlflow_uri):
            Path(settings.mlflow_uri).parent.mkdir(parents=True, exist_ok=True)
        self.mlflow.set_tracking_uri(tracking_uri(settings.mlflow_uri))
        self.mlflow.set_experiment(settings.project)
        self.mlflow.start_run(run_name=run_name)

    def add(self, step: int, scalars: Mapping[str, float]) -> None:
        self.mlflow.log_metrics({tag: float(value) for tag, value in scalars.items()}, step=step)

    def close(self) -> None:
        self.mlflow.end_run()


TRACKERS: dict[str, type[WandbTracker] | type[MlflowTracker]] = {
    "wandb": WandbTracker,
    "mlflow": MlflowTracker,
}


class ScalarTrackers:
    """The TensorBoard event file in ``folder`` and each configured tracker, fed the same
    scalars; ``close`` ends the trackers' runs."""

    def __init__(
        self, folder: str | os.PathLike, settings: TrackingSettings | None, run_name: str
    ) -> None:
        settings = settings or TrackingSettings()
        self.tensorboard = ScalarWriter(folder)
        self.trackers: list[Tracker] = [
            TRACKERS[backend](settings, run_name, Path(folder))
            for backend in settings.backends
            if backend in TRACKERS
        ]

    def add(self, step: int, scalars: Mapping[str, float]) -> None:
        self.tensorboard.add(step, scalars)
        for tracker in self.trackers:
            tracker.add(step, scalars)

    def close(self) -> None:
        for tracker in self.trackers:
            tracker.close()


@dataclass(frozen=True)
class CurveDestination:
    """Where a job's curves go: TensorBoard event files in ``folder``, and the trackers of
    ``tracking`` as run ``run_name``; ``child`` names a part of the job (a fold, a grid point)."""

    folder: Path
    run_name: str
    tracking: TrackingSettings | None = None

    def child(self, name: str) -> CurveDestination:
        return CurveDestination(self.folder / name, f"{self.run_name}/{name}", self.tracking)

    def open(self) -> ScalarTrackers:
        return ScalarTrackers(self.folder, self.tracking, self.run_name)
