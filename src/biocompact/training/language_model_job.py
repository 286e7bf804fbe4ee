"""The rule side of a language-model job (pretraining, task-agnostic distillation): the spec
every such job module reads, launched on the rule's GPUs and nodes, then the model card
(``train_language_model``, which the rules ``pretrain`` and ``distill`` call)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, TypeVar

from biocompact.locations import external_checkpoints
from biocompact.release.cards import CardSettings, write_language_model_card
from biocompact.training.launch import launch

OUTPUTS = ("model", "log", "eval")
Job = TypeVar("Job", bound="LanguageModelJob")


@dataclass(frozen=True)
class LanguageModelJob:
    """What every language-model rule gives its job besides files: the model's name, its
    config entry (parsed by each process), where checkpoints go, and the shared settings."""

    name: str
    settings: dict[str, Any]
    checkpoint_dir: str
    masking: dict[str, Any]
    probes: list[dict[str, Any]]
    tracking: dict[str, Any]  # where the curves go besides TensorBoard
    model_cards: dict[str, Any]
    # checkpoints not built here whose pretraining text the model carries (its card says so)
    external_checkpoints: tuple[str, ...]

    @classmethod
    def from_params(cls: type[Job], params: Any, name: str, config: Mapping[str, Any]) -> Job:
        """The job of model ``name`` from its rule's named ``params`` (``snakemake.params``),
        the tracking and model-card settings from the workflow's ``config``."""
        values = {
            **dict(params.items()),
            "name": name,
            "tracking": config["tracking"],
            "model_cards": config["model_cards"],
            "external_checkpoints": tuple(external_checkpoints(name, config)),
        }
        return cls(**{field.name: values[field.name] for field in fields(cls)})


@dataclass(frozen=True)
class PretrainingJob(LanguageModelJob):
    """A pretraining job."""


@dataclass(frozen=True)
class DistillationJob(LanguageModelJob):
    """A distillation job: also the teacher's folder (or hub name)."""

    teacher: str


def train_language_model(
    module: str,
    job: LanguageModelJob,
    inputs: Mapping[str, Any],
    outputs: Mapping[str, Any],
    *,
    threads: int,
    gpus: int,
    nodes: int,
    **job_inputs: Any,
) -> None:
    """Run job module ``module`` with the spec shared by every language-model rule plus
    ``job_inputs`` (its own folders and settings), launched on ``gpus`` GPUs on each of
    ``nodes`` nodes, then write the card into the published model folder."""
    outputs = {key: outputs[key] for key in OUTPUTS}
    launch(
        module,
        {
            "name": job.name,
            "settings": job.settings,
            "dataset_dir": inputs["corpus"],
            **job_inputs,
            "outputs": outputs,
            "checkpoint_dir": job.checkpoint_dir,
            "masking": job.masking,
            "probes": job.probes,
            "threads": threads,
            "tracking": job.tracking,
        },
        gpus=gpus,
        nodes=nodes,
    )
    write_language_model_card(
        outputs,
        job.settings,
        CardSettings.from_config(job.model_cards),
        inputs["corpus"],
        contamination=inputs.get("contamination") or None,  # [] when not decontaminated
        external=job.external_checkpoints,
    )
