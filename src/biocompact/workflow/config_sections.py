"""The config as a settings class: one field a section, typed by the class of its entries
(each in the settings module of the stage that reads it). The schema is generated from
this class (``biocompact.workflow.schema_generation``).

A section that holds a ``resources`` block (``GpuJob``, of this package) is a class here:
the stages' settings modules lie below this package and cannot import it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import Field, GetPydanticSchema, WithJsonSchema

from biocompact.compression.settings import CompressionSettings
from biocompact.corpus.decontamination import DecontaminationSettings
from biocompact.corpus.settings import CorpusSettings
from biocompact.datasets.settings import DatasetsSettings
from biocompact.distillation.settings import DistillationSettings, StudentSettings
from biocompact.efficiency.settings import EfficiencySettings
from biocompact.entries import ENTRY
from biocompact.finetuning.tasks import FAMILIES
from biocompact.pretraining.settings import PretrainingSettings
from biocompact.release.settings import CardSettings, ReleaseSettings
from biocompact.report.settings import ReportSettings
from biocompact.schema_fields import UNIQUE_ITEMS
from biocompact.task_distillation.settings import (
    NAME_PATTERN,
    ExperimentSettings,
    TransferSetSettings,
)
from biocompact.taskfiles.settings import FinetuningTask, Hyperparameters
from biocompact.tracking.trackers import TrackingSettings
from biocompact.training.settings import DEFAULT_PROBES, MaskingSettings, Probe
from biocompact.vocab.settings import PretrainingData, VocabularySettings
from biocompact.workflow.slurm_resources import DataJobs, GpuJob

Seeds = Annotated[tuple[int, ...], Field(min_length=1), UNIQUE_ITEMS]  # distinct, at least one
NAMED = Field(json_schema_extra={"propertyNames": {"pattern": NAME_PATTERN}})


def _declared_families(schema: Any, handler: Any) -> Any:
    """The schema of a task entry with its ``family`` one of the declared ``FAMILIES``
    (``FinetuningTask`` lies below the finetuning package)."""
    reference = handler(schema)
    handler.resolve_ref_schema(reference)["properties"]["family"]["enum"] = list(FAMILIES)
    return reference


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
    tasks: dict[
        str,
        Annotated[FinetuningTask, GetPydanticSchema(get_pydantic_json_schema=_declared_families)],
    ] = field(default_factory=dict)


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
    transfer_sets: Annotated[dict[str, TransferSetSettings], NAMED] = field(default_factory=dict)
    experiments: Annotated[dict[str, ExperimentSettings], NAMED] = field(default_factory=dict)


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
