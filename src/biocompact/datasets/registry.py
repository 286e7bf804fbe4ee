"""The registry of public datasets, read from ``registry.yaml`` beside this module and
validated against ``registry.schema.yaml`` when it is loaded (so when the DAG is built):
where each dataset is published, which archive members hold its splits, their published
sizes and label set, how they convert to a harness format, its licence, citation and metric.

Neither source publishes a checksum: the first download records its SHA-256 in the checksum
lock file and every later download is verified against it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import jsonschema
import yaml

REGISTRY_FILE = Path(__file__).with_name("registry.yaml")
SCHEMA_FILE = Path(__file__).with_name("registry.schema.yaml")
BLURB_CITATION = (
    "Gu et al. 2021, Domain-Specific Language Model Pretraining for Biomedical Natural "
    "Language Processing (ACM HEALTH 3(1)), the BLURB benchmark"
)


class RegistryError(ValueError):
    """A registry file that does not match its schema; the message names file and key."""


@dataclass(frozen=True)
class Source:
    """One public archive holding one or more datasets."""

    name: str
    url: str
    archive: str  # file name of the download (its suffix tells zip from tar)
    sha256: str | None
    citation: str


@dataclass(frozen=True)
class Split:
    """One split: its archive member (``{fold}`` replaced by each fold), its published size
    in the dataset's unit (None where no source states one) and the allowed difference."""

    member: str
    size: int | None
    tolerance: int = 0
    note: str | None = None


@dataclass(frozen=True)
class Dataset:
    """One registered dataset. ``converter`` names the conversion to the harness ``format``;
    ``task`` holds the task settings it implies (e.g. the negative label), ``recipe`` the
    hyperparameters its publishers fine-tune it with (``recipe_from`` says where). A dataset
    without ``source`` needs credentials: ``obtain`` says where to get it."""

    name: str
    family: str
    format: str
    licence: str
    citation: str
    metric: str
    source: str | None = None
    converter: str = "copy"
    splits: Mapping[str, Split] = field(default_factory=dict)
    folds: tuple[str, ...] | None = None
    task: Mapping[str, object] = field(default_factory=dict)
    blurb_type: str | None = None  # BLURB task type, for the BLURB score
    unit: str | None = None  # what the published sizes count
    labels: tuple[str, ...] | None = None
    sizes_from: str | None = None
    obtain: str | None = None
    recipe: Mapping[str, object] = field(default_factory=dict)  # the publishers' hyperparameters
    recipe_from: str | None = None  # where the publishers state them

    @property
    def members(self) -> dict[str, str]:
        """Split -> archive member (``{fold}`` unreplaced)."""
        return {split: entry.member for split, entry in self.splits.items()}


@dataclass(frozen=True)
class Registry:
    """The sources and datasets of one registry file."""

    sources: Mapping[str, Source]
    datasets: Mapping[str, Dataset]

    def dataset(self, name: str) -> Dataset:
        """The registered dataset ``name``; an unknown name lists the known ones."""
        if name not in self.datasets:
            raise ValueError(f"unknown dataset {name!r}; registered: {sorted(self.datasets)}")
        return self.datasets[name]


def _where(path: Path, keys: list) -> str:
    return f"{path}: {'.'.join(map(str, keys)) or '(top level)'}"


def _dataset(name: str, entry: Mapping) -> Dataset:
    citation = entry["citation"]
    if entry.get("blurb_type"):
        citation = f"{citation}; {BLURB_CITATION}"
    return Dataset(
        name=name,
        family=entry["family"],
        format=entry["format"],
        licence=entry["licence"],
        citation=citation,
        metric=entry["metric"],
        source=entry.get("source"),
        converter=entry.get("converter", "copy"),
        splits={split: Split(**value) for split, value in entry.get("splits", {}).items()},
        folds=tuple(str(fold) for fold in range(1, entry["folds"] + 1))
        if entry.get("folds")
        else None,
        task=dict(entry.get("task", {})),
        blurb_type=entry.get("blurb_type"),
        unit=entry.get("unit"),
        labels=tuple(entry["labels"]) if entry.get("labels") else None,
        sizes_from=entry.get("sizes_from"),
        obtain=entry.get("obtain"),
        recipe=dict(entry["recipe"]["hyperparameters"]) if entry.get("recipe") else {},
        recipe_from=entry["recipe"]["from"] if entry.get("recipe") else None,
    )


def load_registry(path: str | Path = REGISTRY_FILE) -> Registry:
    """Read and validate a registry file; a schema violation raises :class:`RegistryError`
    naming the file and the key at fault."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as error:
        raise RegistryError(f"{path}: cannot read the dataset registry: {error}") from None
    schema = yaml.safe_load(SCHEMA_FILE.read_text(encoding="utf-8"))
    problem = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(schema).iter_errors(data)
    )
    if problem is not None:
        raise RegistryError(f"{_where(path, list(problem.absolute_path))}: {problem.message}")
    for name, entry in data["datasets"].items():
        if entry.get("source") and entry["source"] not in data["sources"]:
            raise RegistryError(
                f"{_where(path, ['datasets', name, 'source'])}: unknown source "
                f"{entry['source']!r}; sources: {sorted(data['sources'])}"
            )
        for split, value in entry.get("splits", {}).items():
            if ("{fold}" in value["member"]) != bool(entry.get("folds")):
                raise RegistryError(
                    f"{_where(path, ['datasets', name, 'splits', split, 'member'])}: "
                    "'{fold}' belongs in the member path exactly when the dataset has folds"
                )
    return Registry(
        sources={name: Source(name, **value) for name, value in data["sources"].items()},
        datasets={name: _dataset(name, entry) for name, entry in data["datasets"].items()},
    )


REGISTRY = load_registry()
SOURCES: Mapping[str, Source] = REGISTRY.sources
DATASETS: Mapping[str, Dataset] = REGISTRY.datasets
BIOBERT = SOURCES["biobert-datasets"]
LINKBERT = SOURCES["linkbert-blurb"]


def get_dataset(name: str) -> Dataset:
    """The dataset ``name`` of the package's registry."""
    return REGISTRY.dataset(name)
