"""The rule side of a language-model job (pretraining, task-agnostic distillation): the spec
every such job module reads, launched on the rule's GPUs and nodes, then the model card
(``train_language_model``, which the rules ``pretrain`` and ``distill`` call)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, TypedDict, TypeVar

from biocompact.entries import parse_entry
from biocompact.files.rule_files import optional_file
from biocompact.release.cards import write_language_model_card
from biocompact.release.settings import CardSettings
from biocompact.tracking.trackers import TrackingSettings
from biocompact.training.launch import JobSpec, launch
from biocompact.training.settings import MaskingSettings, Probe

OUTPUTS = ("model", "log", "eval")
Job = TypeVar("Job", bound="LanguageModelJob")
Spec = TypeVar("Spec", bound="LanguageModelSpec")


@dataclass(frozen=True, kw_only=True)
class LanguageModelSpec(JobSpec):
    """What every process of a language-model job reads besides its stage's own fields
    (``PretrainingSpec``, ``DistillationSpec``, defined by the job modules)."""

    name: str
    dataset_dir: str  # the tokenised corpus
    outputs: dict[str, str]  # the model, log and eval paths
    masking: MaskingSettings
    probes: tuple[Probe, ...]  # fill-mask probes
    tracking: TrackingSettings | None = None  # where the curves go besides TensorBoard


class JobConfig(Protocol):
    """What a language-model job reads of the workflow's parsed config
    (``workflow.config_sections.Config``, above this package)."""

    @property
    def tracking(self) -> TrackingSettings: ...

    @property
    def model_cards(self) -> CardSettings: ...

    def external_checkpoints(self, model: str) -> tuple[str, ...]: ...


@dataclass(frozen=True)
class LanguageModelJob:
    """What every language-model rule gives its job besides files: the model's name, its
    config entry (as the model card quotes it; each stage parses it into its spec's
    settings), where checkpoints go, and the shared settings, parsed."""

    name: str
    settings: dict[str, Any]
    checkpoint_dir: str
    masking: MaskingSettings
    probes: tuple[Probe, ...]
    tracking: TrackingSettings  # where the curves go besides TensorBoard
    model_cards: CardSettings
    # checkpoints not built here whose pretraining text the model carries (its card says so)
    external_checkpoints: tuple[str, ...]

    RULE: ClassVar[str]  # the rule whose params the job reads

    @classmethod
    def from_params(cls: type[Job], params: Any, name: str, config: JobConfig) -> Job:
        """The job of model ``name`` from its rule's named ``params`` (``snakemake.params``),
        the tracking and model-card settings and its lineage from the workflow's parsed
        ``config``."""
        return parse_entry(
            cls,
            {
                **dict(params.items()),
                "name": name,
                "tracking": config.tracking,
                "model_cards": config.model_cards,
                "external_checkpoints": config.external_checkpoints(name),
            },
            f"rule {cls.RULE}",
        )


@dataclass(frozen=True)
class PretrainingJob(LanguageModelJob):
    """A pretraining job."""

    RULE = "pretrain"


@dataclass(frozen=True)
class DistillationJob(LanguageModelJob):
    """A distillation job: also the teacher's folder (or hub name)."""

    RULE = "distill"
    teacher: str


class LanguageModelInputs(TypedDict):
    """The named inputs of rules pretrain and distill that every language-model job reads."""

    corpus: str
    contamination: str | Sequence[str]  # [] when the corpus is not decontaminated


def train_language_model(
    run: Callable[[Spec], object],
    spec_class: type[Spec],
    job: LanguageModelJob,
    inputs: LanguageModelInputs,
    outputs: Mapping[str, str],
    *,
    threads: int,
    gpus: int,
    nodes: int,
    **job_fields: Any,
) -> None:
    """Launch ``run``, the stage's job (``run_pretraining``, ``run_distillation``), on a
    ``spec_class`` spec: the fields shared by every language-model rule plus ``job_fields``
    (its settings, its own folders), on ``gpus`` GPUs on each of ``nodes`` nodes; then write
    the card into the published model folder."""
    spec = spec_class(
        name=job.name,
        dataset_dir=inputs["corpus"],
        outputs={key: outputs[key] for key in OUTPUTS},
        checkpoint_dir=job.checkpoint_dir,
        masking=job.masking,
        probes=job.probes,
        threads=threads,
        tracking=job.tracking,
        **job_fields,
    )
    launch(run, spec, gpus=gpus, nodes=nodes)
    write_language_model_card(
        spec.outputs,
        job.settings,
        job.model_cards,
        inputs["corpus"],
        contamination=optional_file(inputs.get("contamination")),  # None: not decontaminated
        external=job.external_checkpoints,
    )
