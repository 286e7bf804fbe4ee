"""The config as a settings class: one field a section, typed by the class of its entries
(each in the settings module of the stage that reads it). The schema is generated from
this class (``biocompact.workflow.schema_generation``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from biocompact.distillation.settings import DistillationSettings, StudentSettings
from biocompact.entries import ENTRY
from biocompact.pretraining.settings import PretrainingSettings
from biocompact.training.settings import DEFAULT_PROBES, MaskingSettings, Probe
from biocompact.vocab.settings import VocabularySettings
from biocompact.workflow.slurm_resources import GpuJob


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

    vocabularies: dict[str, VocabularySettings] = field(default_factory=dict)
    masking: MaskingSettings = MaskingSettings()
    probes: tuple[Probe, ...] = DEFAULT_PROBES
    """fill-mask sanity probes written beside every language model"""
    pretraining: dict[str, PretrainingEntry] = field(default_factory=dict)
    distillation: dict[str, DistillationEntry] = field(default_factory=dict)
