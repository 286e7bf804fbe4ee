"""The config's ``report`` section; what the report shows of the rest of the config (each
pretrained model's vocabulary, each task's registered dataset and each fine-tuned model's
training text: ``ReportFacts``, which the workflow's parsed config gives); and the settings
of the report's rules, parsed from their params.
Light: no torch and no tokenizers (the report's environment has neither)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import Field

from biocompact.entries import ENTRY
from biocompact.taskfiles.settings import FinetuningTask


@dataclass(frozen=True)
class ReportSettings:
    """the HTML report: its title, its overall average and the bootstrap behind its intervals"""

    __pydantic_config__ = ENTRY
    SECTION = "report"

    title: str = "biocompact report"
    average: Literal["tasks", "groups"] = "tasks"
    """overall average: mean over all tasks (Bioformer Table 3, group averages weighted by
    their number of tasks) or mean of the family averages"""
    resamples: Annotated[int, Field(ge=100)] = 1000
    """paired bootstrap resamples of each task's test units behind every interval and
    comparison of the report (rule comparisons)"""
    bootstrap_seed: int = 0
    """seed of the bootstrap resamples (each task's are drawn from this seed and the task's
    name) and of ASO's"""


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
class ReportFacts:
    """The config's facts the report shows (``Config.report_facts``, of the workflow's
    parsed config); empty where the report has no config."""

    vocabularies: Mapping[str, PretrainedVocabulary] = field(default_factory=dict)
    task_datasets: Mapping[str, str] = field(default_factory=dict)  # for tasks that name one
    finetuned_models: tuple[FinetunedModel, ...] = ()


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
    tasks: Mapping[str, FinetuningTask]  # name -> task, its entry without hyperparameters
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


@dataclass(frozen=True)
class ReportPage:
    """The report's title and what it shows beside the result files (rule report)."""

    title: str
    config: Mapping[str, Any]  # the schema-validated config, shown whole
    benchmarks: str  # the folder of Snakemake's benchmark TSVs
    source_dir: str  # the workflow's git checkout, whose commit is recorded
