"""The config as a settings class: one field a section, typed by the class of its entries
(each in the settings module of the stage that reads it). The schema is generated from
this class (``biocompact.workflow.schema_generation``).

A section that holds a ``resources`` block (``GpuJob``, of this package) is a class here:
the stages' settings modules lie below this package and cannot import it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import Field, WithJsonSchema

from biocompact.compression.settings import CompressionSettings
from biocompact.corpus.decontamination import DecontaminationSettings
from biocompact.corpus.settings import CorpusSettings
from biocompact.datasets.settings import DatasetsSettings
from biocompact.distillation.settings import DistillationSettings, StudentSettings
from biocompact.efficiency.settings import EfficiencySettings
from biocompact.entries import ENTRY, parse_entry
from biocompact.pretraining.settings import PretrainingSettings
from biocompact.release.settings import CardSettings, ReleaseSettings
from biocompact.report.settings import (
    FinetunedModel,
    PretrainedVocabulary,
    ReportFacts,
    ReportSettings,
)
from biocompact.schema_fields import NAMED_ENTRIES, UNIQUE_ITEMS
from biocompact.task_distillation.settings import (
    NAME_PATTERN,
    ExperimentSettings,
    TransferSetSettings,
)
from biocompact.taskfiles.settings import Hyperparameters, TaskEntry
from biocompact.tracking.trackers import TrackingSettings
from biocompact.training.settings import DEFAULT_PROBES, MaskingSettings, Probe
from biocompact.vocab.settings import PretrainingData, VocabularySettings
from biocompact.workflow.slurm_resources import DataJobs, GpuJob

Seeds = Annotated[tuple[int, ...], Field(min_length=1), UNIQUE_ITEMS]  # distinct, at least one
NAMED = Field(json_schema_extra={"propertyNames": {"pattern": NAME_PATTERN}})


@dataclass(frozen=True)
class FinetuningSettings:
    """fine-tuning of every model on every task, with every seed"""

    __pydantic_config__ = ENTRY

    models: Annotated[tuple[str, ...], UNIQUE_ITEMS] = ()
    """models fine-tuned on every task; empty: no fine-tuning or report"""
    seeds: Seeds = (1, 2, 3, 4, 5)
    presets: dict[str, Hyperparameters] = field(default_factory=dict)
    resources: GpuJob = GpuJob()
    """each (model, task, seed) run is one job, one process: gpus at most 1"""
    save_models: Literal["none", "best", "all"] = "none"
    """fine-tuned models kept as outputs: none, no folder (the default); best, one per (model,
    task) in results/finetuned/{model}/{task}/model (the seed save_choice picks, with a model
    card); all, also every seed's in results/finetuning/{model}/{task}/seed{seed}/model.
    Cross-validated tasks are never saved"""
    save_choice: Literal["median_dev", "best_dev"] = "median_dev"
    """the seed published: median_dev, the one whose dev score is the median (of an even count
    the lower middle); best_dev, the best on dev"""
    # checked against the presets' settings and the config's models (check_model_overrides)
    model_overrides: dict[str, Annotated[dict[str, Any], WithJsonSchema({"type": "object"})]] = (
        field(default_factory=dict)
    )
    """per-model hyperparameter overrides: {model: {learning_rate: ..}}"""
    tasks: Annotated[dict[str, TaskEntry], NAMED_ENTRIES] = field(default_factory=dict)


@dataclass(frozen=True)
class TaskDistillationSettings:
    """task-specific distillation on transfer data (BioXtract): a teacher fine-tuned on a task
    labels transfer sets with its probabilities; a student trained on them alone is evaluated
    on the task"""

    __pydantic_config__ = ENTRY

    seeds: Seeds = (1, 2, 3)
    """student seeds (BioXtract: 3); medians over them"""
    resources: GpuJob = GpuJob()
    """each teacher, soft-label and student job: the teacher and the students train
    data-parallel on gpus GPUs (one node: nodes 1); soft labels and untrained students run on
    one"""
    checkpoint_every: Annotated[int, Field(ge=1)] = 500
    """optimizer steps between the resumable checkpoints of the teacher's and the students'
    training (one more at the end of each); a job killed and started again (a Slurm retry)
    resumes from the newest, to the weights of an uninterrupted run. Changing it re-runs
    nothing"""
    transfer_sets: Annotated[dict[str, TransferSetSettings], NAMED, NAMED_ENTRIES] = field(
        default_factory=dict
    )
    experiments: Annotated[dict[str, ExperimentSettings], NAMED, NAMED_ENTRIES] = field(
        default_factory=dict
    )


@dataclass(frozen=True, kw_only=True)
class Resources:
    """The Slurm resources of an entry's job: in the config, not in what its job reads (the
    rule leaves them out, ``without_resources``)."""

    __pydantic_config__ = ENTRY

    resources: GpuJob = GpuJob()


@dataclass(frozen=True, kw_only=True)
class PretrainingEntry(Resources, PretrainingSettings):
    """How one model is pretrained: its training, family, initialisation and objective, and
    its job's Slurm resources."""


# StudentSettings named after Resources puts the resources between the student's fields and
# the method options (the fields follow the reversed method resolution order).
@dataclass(frozen=True, kw_only=True)
class DistillationEntry(DistillationSettings, Resources, StudentSettings):
    """How one student is distilled: training, teacher, method, student initialisation, its
    job's Slurm resources and the method's options."""


@dataclass(frozen=True)
class Config:
    """biocompact configuration. Unknown keys are errors; defaults are filled in. Every
    section is optional: a section left out is empty (no corpus files, models or tasks) or
    takes the defaults below."""

    __pydantic_config__ = ENTRY

    corpus: CorpusSettings = CorpusSettings()
    decontamination: DecontaminationSettings = DecontaminationSettings()
    vocabularies: dict[str, VocabularySettings] = field(default_factory=dict)
    pretraining_data: PretrainingData = PretrainingData()
    data_jobs: DataJobs = DataJobs()
    masking: MaskingSettings = MaskingSettings()
    probes: tuple[Probe, ...] = DEFAULT_PROBES
    """fill-mask sanity probes written beside every language model"""
    pretraining: dict[str, PretrainingEntry] = field(default_factory=dict)
    distillation: dict[str, DistillationEntry] = field(default_factory=dict)
    release: ReleaseSettings = ReleaseSettings()
    model_cards: CardSettings = CardSettings()
    tracking: TrackingSettings = TrackingSettings()
    external_models: dict[str, str] = field(default_factory=dict)
    """checkpoints not built by this DAG, name -> folder, hub name or python-package:NAME/PATH"""
    finetuning: FinetuningSettings = FinetuningSettings()
    datasets: DatasetsSettings = DatasetsSettings()
    task_distillation: TaskDistillationSettings = TaskDistillationSettings()
    compression: CompressionSettings = CompressionSettings()
    efficiency: EfficiencySettings = EfficiencySettings()
    report: ReportSettings = ReportSettings()

    def external_checkpoints(self, model: str) -> tuple[str, ...]:
        """The checkpoints not built by this workflow whose pretraining text ``model``
        carries (its own location, a pretraining ``init``, a teacher's or an initial
        student's lineage): text that no one here has checked for evaluation text."""
        if model in self.external_models:
            return (self.external_models[model],)
        if model in self.pretraining:
            init = self.pretraining[model].init
            return () if init == "scratch" else (init,)
        entry = self.distillation[model]
        sources = [*self.external_checkpoints(entry.teacher)]
        built = (self.external_models, self.pretraining, self.distillation)
        if any(entry.student_init in models for models in built):
            sources += self.external_checkpoints(entry.student_init)
        elif entry.student_init not in ("teacher_layers", "random"):
            sources.append(entry.student_init)
        return tuple(dict.fromkeys(sources))

    def report_facts(self) -> ReportFacts:
        """What the report shows of the config beside the result files: each pretrained
        model's vocabulary, each task's registered dataset, each fine-tuned model's lineage."""
        return ReportFacts(
            vocabularies={
                model: PretrainedVocabulary(
                    entry.vocabulary, self.vocabularies[entry.vocabulary].type
                )
                for model, entry in self.pretraining.items()
            },
            task_datasets={
                name: task.dataset for name, task in self.finetuning.tasks.items() if task.dataset
            },
            finetuned_models=tuple(
                FinetunedModel(
                    model,
                    built_here=model not in self.external_models,
                    external_checkpoints=self.external_checkpoints(model),
                )
                for model in self.finetuning.models
            ),
        )


def parse_config(config: Mapping[str, Any]) -> Config:
    """The workflow's ``config``, validated by the schema (its defaults filled in), as a
    ``Config``: each entry of a named section holds its name."""
    return parse_entry(Config, config, "config")
