"""What the report reads of the config, parsed once from the schema-validated config:
each pretrained model's vocabulary, each task's registered dataset and each fine-tuned
model's training text; and the settings of the report's rules, parsed from their params.
Light: no torch and no tokenizers (the report's environment has neither), so the
vocabulary and pretraining entries are read here, not through their stages' settings
classes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from biocompact.entries import parse_entry
from biocompact.locations import external_checkpoints
from biocompact.taskfiles.settings import FinetuningTask


@dataclass(frozen=True)
class PretrainedVocabulary:
    """The vocabulary a model of ``pretraining`` trains with: its name in ``vocabularies``
    and its type (wordpiece, bpe...)."""

    name: str
    type: str


@dataclass(frozen=True)
class FinetunedModel:
    """A model of ``finetuning.models``: whether this workflow pretrained or distilled it
    (else it is one of ``external_models``) and the checkpoints not built here whose
    pretraining text it carries."""

    name: str
    built_here: bool
    external_checkpoints: tuple[str, ...]


@dataclass(frozen=True)
class ReportSettings:
    """The config's facts the report shows; empty where the report has no config."""

    vocabularies: Mapping[str, PretrainedVocabulary] = field(default_factory=dict)
    task_datasets: Mapping[str, str] = field(default_factory=dict)  # for tasks that name one
    finetuned_models: tuple[FinetunedModel, ...] = ()

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> ReportSettings:
        """The facts of ``config``, validated by the schema (its sections and defaults
        filled in) and by the config checks (a pretraining vocabulary is configured)."""
        return cls(
            vocabularies={
                model: PretrainedVocabulary(
                    entry["vocabulary"], config["vocabularies"][entry["vocabulary"]]["type"]
                )
                for model, entry in config["pretraining"].items()
            },
            task_datasets={
                task: entry["dataset"]
                for task, entry in config["finetuning"]["tasks"].items()
                if entry["dataset"]
            },
            finetuned_models=tuple(
                FinetunedModel(
                    model,
                    built_here=model not in config["external_models"],
                    external_checkpoints=tuple(external_checkpoints(model, config)),
                )
                for model in config["finetuning"]["models"]
            ),
        )


@dataclass(frozen=True)
class ScoreAggregation:
    """The fine-tuning runs aggregated over seeds (rule aggregate): their metrics files
    (``str.format`` patterns of model, task and seed), the average over tasks, and each
    student's teacher, whose scores it retains."""

    models: tuple[str, ...]
    tasks: tuple[str, ...]
    seeds: tuple[int, ...]
    metrics_pattern: str
    baseline_pattern: str  # a task's majority-baseline metrics
    average: str  # a key of aggregation.AVERAGE_FORMULAS
    blurb_types: Mapping[str, str]  # task -> BLURB type, for BLURB's tasks
    teachers: Mapping[str, str]  # student -> teacher
    floors_pattern: str = ""  # a task's folder of its other constant floors ("": none)


@dataclass(frozen=True)
class ComparisonStudy:
    """The runs compared with intervals (rule comparisons, benchmarks/bootstrap_study.py):
    their metrics and predictions files (``str.format`` patterns of model, task and seed;
    a task's for its majority baseline, and the folder of its other constant floors), and the
    bootstrap's resamples and seed."""

    models: tuple[str, ...]
    tasks: tuple[FinetuningTask, ...]
    seeds: tuple[int, ...]
    metrics_pattern: str
    predictions_pattern: str
    baseline_metrics_pattern: str
    baseline_predictions_pattern: str
    teachers: Mapping[str, str]  # student -> teacher
    average: str  # a key of aggregation.AVERAGE_FORMULAS
    blurb_types: Mapping[str, str]  # task -> BLURB type, for BLURB's tasks
    resamples: int
    seed: int
    floors_pattern: str = ""  # a task's folder of its other constant floors ("": none)

    @classmethod
    def from_entry(cls, entry: Mapping[str, Any], where: str) -> ComparisonStudy:
        """Parse ``entry``, its ``tasks`` a mapping of task name -> task entry without
        hyperparameters (each a ``FinetuningTask``); errors name ``where``."""
        tasks = [parse_entry(FinetuningTask, task) for task in entry["tasks"].values()]
        return parse_entry(cls, {**entry, "tasks": tasks}, where)


@dataclass(frozen=True)
class ReportPage:
    """The report's title and what it shows beside the result files (rule report)."""

    title: str
    config: Mapping[str, Any]  # the schema-validated config, shown whole
    benchmarks: str  # the folder of Snakemake's benchmark TSVs
    source_dir: str  # the workflow's git checkout, whose commit is recorded
