"""Fill in a fine-tuning task that names a registered ``dataset`` (light: used when the DAG
is built): the family, format, split paths under the cache, folds and metric of the
registry, each only where the task leaves it unset; and the publishers' fine-tuning recipe
of the dataset (``dataset_recipe``)."""

from __future__ import annotations

from collections.abc import Mapping

from biocompact.datasets.convert import split_file
from biocompact.datasets.registry import SOURCES, Dataset, get_dataset

CACHE = "results/data"


def archive_path(source: str, cache: str = CACHE) -> str:
    """Where the download of source archive ``source`` is kept."""
    return f"{cache}/archives/{source}/{SOURCES[source].archive}"


def dataset_folder(name: str, cache: str = CACHE) -> str:
    """The cache folder of the prepared files of dataset ``name``."""
    return f"{cache}/{name}"


def _checked(task: str, name: str) -> Dataset:
    try:
        dataset = get_dataset(name)
    except ValueError as error:
        raise ValueError(f"config: finetuning.tasks.{task}.dataset: {error}") from None
    if dataset.source is None:
        raise ValueError(
            f"config: finetuning.tasks.{task}: dataset {name!r} cannot be downloaded; "
            f"{dataset.obtain}"
        )
    return dataset


def dataset_task(task: str, settings: Mapping, cache: str = CACHE) -> dict:
    """``settings`` of task ``task`` with its ``dataset`` filled in (unchanged without one)."""
    name = settings.get("dataset")
    if not name:
        return dict(settings)
    dataset = _checked(task, name)
    folder = dataset_folder(name, cache)
    implied: dict[str, object] = {
        "family": dataset.family,
        "format": dataset.format,
        "metric": dataset.metric,
        "folds": list(dataset.folds) if dataset.folds else None,
        **dataset.task,
        **{split: f"{folder}/{split_file(dataset, split)}" for split in dataset.members},
    }
    filled = dict(settings)
    for key, value in implied.items():
        if filled.get(key) is None:
            filled[key] = value
    return filled


def dataset_recipe(settings: Mapping) -> dict:
    """The registry's fine-tuning recipe of the dataset the task ``settings`` name (the
    publishers' hyperparameters; empty without a dataset or a recipe)."""
    name = settings.get("dataset")
    return dict(get_dataset(name).recipe) if name else {}


def uses_prepared_files(settings: Mapping, cache: str = CACHE) -> bool:
    """Whether a task reads its dataset's prepared files (some split path left to the
    registry) rather than its own copies of every split."""
    return bool(settings.get("dataset")) and any(
        str(path).startswith(f"{cache}/")
        for path in dataset_task("", settings, cache).values()
        if isinstance(path, str)
    )
