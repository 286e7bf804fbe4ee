"""Rule entry points of the finetuning stage: one function per rule of
workflow/rules/finetuning.smk, named after the rule (``finetune_kept`` and
``finetune_saved`` are rule ``finetune`` with other outputs: they run its function)."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from biocompact.files.rule_files import optional_file
from biocompact.finetuning import baseline
from biocompact.finetuning.saved_models import Publication, publish_chosen
from biocompact.records.contamination import ContaminationRecord
from biocompact.records.metrics import MetricsRecord
from biocompact.release.cards import base_model_statement
from biocompact.taskfiles.settings import FinetuningTask

if TYPE_CHECKING:
    from biocompact.finetuning.train import FinetuneRun

logger = logging.getLogger(__name__)


def finetune(run: FinetuneRun, *, outputs: Mapping[str, str], threads: int) -> MetricsRecord:
    """``train.finetune`` of ``run`` into the rule's outputs (metrics, predictions, and the
    model with its card where the rule has a ``model`` output) on ``threads`` CPU threads."""
    # imported here: training loads torch and transformers (4 CPU-s a job), which the
    # stage's other rules (a baseline's floors, a publication) never use
    from biocompact.finetuning import train

    return train.finetune(run, outputs=outputs, threads=threads)


def publish_finetuned(
    publication: Publication,
    *,
    inputs: Mapping[str, Sequence[str]],
    outputs: Mapping[str, str],
) -> MetricsRecord:
    """``publish_chosen`` of the seeds' records (``inputs["metrics"]``) and model folders
    (``inputs["models"]``, in the same order) to ``outputs["model"]``; the card states
    whether the base model's corpus was decontaminated (``inputs["contamination"]``, the
    corpus's contamination.json where the base model was trained on a decontaminated one)."""
    records = [MetricsRecord.read(path) for path in inputs["metrics"]]
    contamination = optional_file(inputs.get("contamination"))  # None: not decontaminated
    statement = base_model_statement(
        publication.task.name,
        ContaminationRecord.read(contamination) if contamination else None,
        publication.external_checkpoints,
        built_here=publication.base_model_built_here,
    )
    chosen = publish_chosen(
        records,
        {record.seed: folder for record, folder in zip(records, inputs["models"], strict=True)},
        publication.choice,
        publication.task,
        publication.card_settings,
        outputs["model"],
        decontamination=statement,
    )
    logger.info("published seed %d as %s", chosen.seed, outputs["model"])
    return chosen


def majority_baseline(
    task: FinetuningTask, *, outputs: Mapping[str, str]
) -> dict[str, MetricsRecord]:
    """``baseline.constant_floors`` of ``task``: the majority class's metrics and test
    predictions into the rule's outputs (metrics, predictions), every other constant floor
    that applies into its ``floors`` folder; floor -> record."""
    return baseline.constant_floors(task, outputs=outputs)
