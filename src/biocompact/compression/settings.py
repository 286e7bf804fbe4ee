"""The config's ``compression`` section, parsed once into checked settings, and the settings
of the compression rules. Light (no torch): the workflow parses the section when it builds
the DAG, so a bad entry stops it before any job runs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Annotated, Any

from pydantic import Field

from biocompact.efficiency.settings import Timing
from biocompact.entries import ENTRY
from biocompact.schema_fields import UNIQUE_ITEMS
from biocompact.taskfiles.settings import FinetuningTask

REFERENCE = "fp32"  # the fine-tuned model as saved: every format is compared with it
FORMATS = ("int8", "onnx")


@dataclass(frozen=True)
class CompressionSettings:
    """deployment formats of fine-tuned models: each (model, task) fine-tuned once more with
    one seed and saved, quantised to int8 and exported to ONNX, each format re-scored on the
    task's test set and timed on CPU at efficiency's batch sizes and sequence lengths. Empty
    models and tasks: off"""

    __pydantic_config__ = ENTRY
    SECTION = "compression"

    models: Annotated[tuple[str, ...], UNIQUE_ITEMS] = ()
    """models of finetuning.models to compress"""
    tasks: Annotated[tuple[str, ...], UNIQUE_ITEMS] = ()
    """tasks of finetuning.tasks (without folds) to compress each model on"""
    seed: int | None = None
    """the fine-tuning seed of the saved model; null: the first of finetuning.seeds (its fp32
    score is then that seed's fine-tuning score)"""
    formats: Annotated[tuple[str, ...], UNIQUE_ITEMS] = FORMATS
    """int8: PyTorch dynamic quantisation of every nn.Linear; onnx: ONNX export run with ONNX
    Runtime's CPUExecutionProvider. fp32, the saved model, is always the reference"""
    threads: Annotated[int, Field(ge=1)] = 1
    """CPU threads every format is timed with (PyTorch's intra-op threads; ONNX Runtime's
    intra-op threads)"""

    def __post_init__(self) -> None:
        if bool(self.models) != bool(self.tasks):
            empty = "tasks" if self.models else "models"
            raise ValueError(
                f"config: compression.{empty} is empty; compression needs both models and tasks"
            )
        for name in self.formats:
            if name not in FORMATS:
                raise ValueError(
                    f"config: compression.formats: unknown format {name!r}; known: {list(FORMATS)}"
                )
        if len(set(self.formats)) != len(self.formats):
            raise ValueError("config: compression.formats repeats a format")

    @property
    def pairs(self) -> list[tuple[str, str]]:
        """Every (model, task) to compress."""
        return [(model, task) for model in self.models for task in self.tasks]

    @property
    def all_formats(self) -> tuple[str, ...]:
        """The reference first, then the configured formats."""
        return (REFERENCE, *self.formats)

    def checked(
        self,
        finetune_models: Sequence[str],
        tasks: Mapping[str, Mapping[str, Any]],
        seeds: Sequence[int],
    ) -> CompressionSettings:
        """These settings checked against the config's fine-tuning (``finetune_models``, the
        task entries, ``seeds``), a seed left null the first fine-tuning seed. Errors name the
        key."""
        for model in self.models:
            if model not in finetune_models:
                raise ValueError(
                    f"config: compression.models names {model!r}, which is not fine-tuned "
                    f"(finetuning.models: {list(finetune_models)})"
                )
        for task in self.tasks:
            if task not in tasks:
                raise ValueError(
                    f"config: compression.tasks names {task!r}, which is not in finetuning.tasks"
                )
            if tasks[task].get("folds"):
                raise ValueError(
                    f"config: compression.tasks names {task!r}, a cross-validated task: "
                    "one saved model per task is needed"
                )
        if self.seed is None and self.models and not seeds:
            raise ValueError("config: compression.seed is null and finetuning.seeds is empty")
        return replace(self, seed=seeds[0]) if self.seed is None and seeds else self


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
