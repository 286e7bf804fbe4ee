"""The config's ``finetuning`` section: a task resolved into a plain entry (``task_entry``, the rules'
params) from its preset, its dataset's recipe, its own settings and a model's overrides, and
parsed into ``FinetuningTask`` (``taskfiles/settings.py``).

Light (no torch): the workflow resolves every task when it builds the DAG, so a bad entry
stops it before any job runs. Rules pass plain entries (``task_entry``: Snakemake's params
trigger compares plain values only), and jobs parse them with
``biocompact.entries.parse_entry``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from biocompact.datasets.tasks import dataset_recipe, dataset_task
from biocompact.entries import parse_entry
from biocompact.taskfiles.settings import FinetuningTask


def check_model_overrides(finetuning: Mapping[str, Any], models: list[str]) -> None:
    """Each ``model_overrides`` entry names a model of the config (``models``) and only
    settings of a preset."""
    known = {key for preset in finetuning["presets"].values() for key in preset}
    for name, overrides in finetuning["model_overrides"].items():
        if name not in models:
            raise ValueError(
                f"config: finetuning.model_overrides names {name!r}, which is not a model of "
                "this config"
            )
        unknown = sorted(set(overrides) - known)
        if known and unknown:
            raise ValueError(
                f"config: finetuning.model_overrides.{name}: {unknown} are not settings of a "
                f"preset; known: {sorted(known)}"
            )


def task_entry(
    finetuning: Mapping[str, Any],
    task: str,
    model: str | None = None,
    *,
    training: bool = True,
    hyperparameters: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Task ``task`` of the schema-validated ``finetuning`` section as a plain entry (the
    rules' params), checked by parsing it; the config is not changed. Its ``dataset`` is
    filled in and its ``hyperparameters`` are the preset's, then the dataset's recipe (the
    publishers' settings in the registry), then the task's overrides, then
    ``model_overrides`` of ``model`` (or ``hyperparameters`` instead, when given: task
    distillation's classifier training). Without ``training``: the task's data alone."""
    settings = finetuning["tasks"][task]
    if settings["preset"] not in finetuning["presets"]:
        raise ValueError(
            f"config: finetuning.tasks.{task}.preset {settings['preset']!r} is not in "
            "finetuning.presets"
        )
    entry = dataset_task(task, settings)
    entry["name"] = task
    if not training or hyperparameters is not None:
        del entry["hyperparameters"]
    if hyperparameters is not None:
        # last, as before: Snakemake compares params by their repr, so the order is kept
        entry["hyperparameters"] = dict(hyperparameters)
    elif training:
        entry["hyperparameters"] = {
            **finetuning["presets"][settings["preset"]],
            **dataset_recipe(settings),
            **settings["hyperparameters"],
            **(finetuning["model_overrides"].get(model, {}) if model else {}),
        }
    parse_entry(FinetuningTask, entry, f"config: finetuning.tasks.{task}")
    return entry


def resolve_task(
    finetuning: Mapping[str, Any],
    task: str,
    model: str | None = None,
    *,
    training: bool = True,
    hyperparameters: Mapping[str, Any] | None = None,
) -> FinetuningTask:
    """``task_entry`` parsed (what the workflow reads of a task when it builds the DAG)."""
    entry = task_entry(finetuning, task, model, training=training, hyperparameters=hyperparameters)
    return parse_entry(FinetuningTask, entry, f"config: finetuning.tasks.{task}")
