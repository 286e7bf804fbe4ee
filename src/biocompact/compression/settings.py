"""The config's ``compression`` section, parsed once into checked settings, and the settings
of the compression rules. Light (no torch): the workflow parses the section when it builds
the DAG, so a bad entry stops it before any job runs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from biocompact.efficiency.settings import Timing
from biocompact.entries import parse_entry
from biocompact.taskfiles.settings import FinetuningTask

REFERENCE = "fp32"  # the fine-tuned model as saved: every format is compared with it
FORMATS = ("int8", "onnx")


@dataclass(frozen=True)
class CompressionSettings:
    """Which fine-tuned (model, task) pairs to compress, with which seed, into which formats."""

    models: tuple[str, ...] = ()
    tasks: tuple[str, ...] = ()
    seed: int = 1
    formats: tuple[str, ...] = FORMATS

    @property
    def pairs(self) -> list[tuple[str, str]]:
        """Every (model, task) to compress."""
        return [(model, task) for model in self.models for task in self.tasks]

    @property
    def all_formats(self) -> tuple[str, ...]:
        """The reference first, then the configured formats."""
        return (REFERENCE, *self.formats)

    @classmethod
    def from_config(
        cls,
        section: Mapping[str, Any],
        finetune_models: Sequence[str],
        tasks: Mapping[str, Mapping[str, Any]],
        seeds: Sequence[int],
    ) -> CompressionSettings:
        """Parse ``compression`` against the config's fine-tuning (``finetune_models``, the task
        entries, ``seeds``: a seed left null is the first fine-tuning seed). Errors name the key."""
        models = tuple(section.get("models") or ())
        task_names = tuple(section.get("tasks") or ())
        if bool(models) != bool(task_names):
            empty = "tasks" if models else "models"
            raise ValueError(
                f"config: compression.{empty} is empty; compression needs both models and tasks"
            )
        for model in models:
            if model not in finetune_models:
                raise ValueError(
                    f"config: compression.models names {model!r}, which is not fine-tuned "
                    f"(finetuning.models: {list(finetune_models)})"
                )
        for task in task_names:
            if task not in tasks:
                raise ValueError(
                    f"config: compression.tasks names {task!r}, which is not in finetuning.tasks"
                )
            if tasks[task].get("folds"):
                raise ValueError(
                    f"config: compression.tasks names {task!r}, a cross-validated task: "
                    "one saved model per task is needed"
                )
        formats = tuple(section.get("formats", FORMATS))
        for name in formats:
            if name not in FORMATS:
                raise ValueError(
                    f"config: compression.formats: unknown format {name!r}; known: {list(FORMATS)}"
                )
        if len(set(formats)) != len(formats):
            raise ValueError("config: compression.formats repeats a format")
        seed = section.get("seed")
        if seed is None:
            if models and not seeds:
                raise ValueError("config: compression.seed is null and finetuning.seeds is empty")
            seed = seeds[0] if seeds else cls.seed
        return cls(
            models=models,
            tasks=task_names,
            seed=int(seed),
            formats=formats,
        )


@dataclass(frozen=True)
class CompressionFormat:
    """The format one saved fine-tuned model is written in (rule compress)."""

    format: str  # one of FORMATS


@dataclass(frozen=True)
class CompressedEvaluation(Timing):
    """The formats of one fine-tuned model scored on its task's test set and timed together
    (rule evaluate_compressed)."""

    formats: tuple[str, ...]  # the order of the rule's evaluations and predictions files
    task: FinetuningTask
    seed: int  # the fine-tuning seed, whose test predictions are re-scored
    model: str
    task_name: str

    @classmethod
    def from_entry(cls, entry: Mapping[str, Any], where: str) -> CompressedEvaluation:
        """Parse the rule's params: ``task`` a task entry (a ``FinetuningTask``),
        ``seed`` the text of its wildcard; errors name ``where``."""
        return parse_entry(
            cls,
            {
                **entry,
                "task": parse_entry(FinetuningTask, entry["task"]),
                "seed": int(entry["seed"]),
            },
            where,
        )
