"""The config as a settings class: one field a section, typed by the class of its entries
(each in the settings module of the stage that reads it). The schema is generated from
this class (``biocompact.workflow.schema_generation``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from biocompact.compression.settings import CompressionSettings
from biocompact.corpus.decontamination import DecontaminationSettings
from biocompact.corpus.settings import CorpusSettings
from biocompact.distillation.settings import DistillationSettings, StudentSettings
from biocompact.efficiency.settings import EfficiencySettings
from biocompact.entries import ENTRY
from biocompact.pretraining.settings import PretrainingSettings
from biocompact.release.settings import CardSettings, ReleaseSettings
from biocompact.report.settings import ReportSettings
from biocompact.tracking.trackers import TrackingSettings
from biocompact.training.settings import DEFAULT_PROBES, MaskingSettings, Probe
from biocompact.vocab.settings import PretrainingData, VocabularySettings
from biocompact.workflow.slurm_resources import DataJobs, GpuJob


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
    compression: CompressionSettings = CompressionSettings()
    efficiency: EfficiencySettings = EfficiencySettings()
    report: ReportSettings = ReportSettings()
