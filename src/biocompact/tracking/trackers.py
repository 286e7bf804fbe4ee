"""Experiment trackers beside the TensorBoard event files: the config's ``tracking`` section
adds Weights & Biases or MLflow, fed the same scalars at the same steps, and each run's
parameters (``run_params``: stage, model, task, seed, hyperparameters, the config entry and
the biocompact commit) as MLflow params and tags and as the W&B run's config.

Both are optional extras (``pip install 'biocompact[tracking]'``), imported only when a job
opens a tracker; ``check_backends`` refuses a backend that is not installed when the DAG is
built. W&B follows its own environment (``WANDB_MODE=offline``, ``WANDB_DIR``); MLflow
writes to ``mlflow_uri``, a local SQLite database under results/ by default (MLflow 3.13 and
later refuse a ``file:`` store).
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal, Protocol

from biocompact.entries import ENTRY
from biocompact.schema_fields import UNIQUE_ITEMS
from biocompact.tracking.tensorboard_events import ScalarWriter

# backend -> (module it imports, pip package that installs it); tensorboard is built in
OPTIONAL_BACKENDS = {"wandb": ("wandb", "wandb"), "mlflow": ("mlflow", "mlflow")}

# A run's parameters as its trackers show them: names to values of any kind, nested in
# mappings (W&B's config as they are, MLflow's params flattened by ``flat_params``).
RunParams = Mapping[str, object]


@dataclass(frozen=True)
class TrackingSettings:
    """where training curves go besides TensorBoard's event files (always written): W&B or
    MLflow, optional extras (docs/outputs.md, 'Live curves')"""

    __pydantic_config__ = ENTRY
    SECTION = "tracking"

    backends: Annotated[tuple[Literal["tensorboard", "wandb", "mlflow"], ...], UNIQUE_ITEMS] = (
        "tensorboard",
    )
    """wandb and mlflow need pip install '.[tracking]'"""
    project: str = "biocompact"
    """the W&B project and the MLflow experiment"""
    mlflow_uri: str = "results/tracking/mlflow.db"
    """MLflow's tracking URI; a plain path is a local SQLite database"""


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


# the parameters that say which run this is: MLflow tags (and params), W&B config keys
RUN_TAGS = ("stage", "model", "task", "seed", "fold", "commit")
# MLflow's own tag of the code version a run comes from
MLFLOW_COMMIT_TAG = "mlflow.source.git.commit"


def biocompact_commit() -> str:
    """The git commit of the biocompact checkout this code runs from (``-dirty`` with
    uncommitted changes), or ``unknown`` outside a git checkout."""
    repository = Path(__file__).resolve().parents[2]
    try:
        commit = subprocess.run(
            ["git", "-C", str(repository), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        status = subprocess.run(
            ["git", "-C", str(repository), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return commit + ("-dirty" if status else "")


def run_params(params: RunParams | None) -> dict[str, object]:
    """A run's ``params`` with the biocompact commit it runs from (``commit``)."""
    return {**(params or {}), "commit": biocompact_commit()}


def flat_params(params: RunParams, prefix: str = "") -> dict[str, str]:
    """Nested ``params`` as MLflow params: dotted keys (``hyperparameters.learning_rate``),
    text values as they are, other values as JSON (``5e-05``, ``[1, 2]``, ``null``)."""
    flat = {}
    for key, value in params.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            flat.update(flat_params(value, f"{name}."))
        else:
            flat[name] = value if isinstance(value, str) else json.dumps(value, default=str)
    return flat


class Tracker(Protocol):
    def add(self, step: int, scalars: Mapping[str, float]) -> None: ...

    def close(self) -> None: ...


class WandbTracker:
    """One W&B run (``wandb.init``) with the run's parameters as its config, logged at the
    training step."""

    def __init__(
        self, settings: TrackingSettings, run_name: str, folder: Path, params: RunParams
    ) -> None:
        wandb = importlib.import_module("wandb")
        self.run = wandb.init(
            project=settings.project,
            name=run_name,
            group=run_name.split("/", 1)[0],
            dir=os.environ.get("WANDB_DIR", str(folder)),
            config=dict(params),
        )

    def add(self, step: int, scalars: Mapping[str, float]) -> None:
        self.run.log(dict(scalars), step=step)

    def close(self) -> None:
        self.run.finish()


class MlflowTracker:
    """One MLflow run of the experiment ``project``: the run's parameters as params
    (``flat_params``), those of ``RUN_TAGS`` also as tags (the commit as MLflow's git
    commit tag), its metrics logged at the training step."""

    def __init__(
        self, settings: TrackingSettings, run_name: str, folder: Path, params: RunParams
    ) -> None:
        self.mlflow = importlib.import_module("mlflow")
        if not is_uri(settings.mlflow_uri):
            Path(settings.mlflow_uri).parent.mkdir(parents=True, exist_ok=True)
        self.mlflow.set_tracking_uri(tracking_uri(settings.mlflow_uri))
        self.mlflow.set_experiment(settings.project)
        self.mlflow.start_run(run_name=run_name)
        flat = flat_params(params)
        tags = {key: flat[key] for key in RUN_TAGS if key in flat}
        if "commit" in tags:
            tags[MLFLOW_COMMIT_TAG] = tags["commit"]
        self.mlflow.set_tags(tags)
        self.mlflow.log_params(flat)

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
    scalars, the trackers' runs given ``params`` (``run_params``); ``close`` ends them."""

    def __init__(
        self,
        folder: str | os.PathLike,
        settings: TrackingSettings | None,
        run_name: str,
        params: RunParams | None = None,
    ) -> None:
        settings = settings or TrackingSettings()
        self.tensorboard = ScalarWriter(folder)
        backends = [backend for backend in settings.backends if backend in TRACKERS]
        described = run_params(params) if backends else {}
        self.trackers: list[Tracker] = [
            TRACKERS[backend](settings, run_name, Path(folder), described) for backend in backends
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
    ``tracking`` as run ``run_name`` with ``params``; ``child`` names a part of the job (a
    fold, a grid point) with the parameters it adds."""

    folder: Path
    run_name: str
    tracking: TrackingSettings | None = None
    params: RunParams = field(default_factory=dict)

    def child(self, name: str, **params: Any) -> CurveDestination:
        return CurveDestination(
            self.folder / name, f"{self.run_name}/{name}", self.tracking, {**self.params, **params}
        )

    def open(self) -> ScalarTrackers:
        return ScalarTrackers(self.folder, self.tracking, self.run_name, self.params)
