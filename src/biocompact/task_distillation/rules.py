"""Rule entry points of the task_distillation stage: one function per rule of
workflow/rules/task_distillation.smk, named after the rule.

Light at import (no torch): rule task_distillation_summary runs in envs/report.yaml, which has
no torch, so the rules that run a model import their modules when they are called."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypedDict

import pandas as pd

from biocompact.corpus.decontamination import EvaluationIndex
from biocompact.files.atomic import write_json
from biocompact.records.base import record_data
from biocompact.records.transfer_set import TransferSetRecord
from biocompact.task_distillation.settings import EvaluationRuns, TransferSetSettings
from biocompact.task_distillation.summary import write_summary
from biocompact.task_distillation.transfer import build_transfer_set, read_transfer_set

if TYPE_CHECKING:
    from biocompact.finetuning.checkpoints import Checkpointing
    from biocompact.finetuning.train import FinetuneRun
    from biocompact.task_distillation.job import StudentsInputs
    from biocompact.task_distillation.soft_labels import SoftLabelRun
    from biocompact.task_distillation.student import StudentRun

logger = logging.getLogger(__name__)


def transfer_set(
    settings: TransferSetSettings, *, inputs: Mapping[str, str], outputs: Mapping[str, str]
) -> TransferSetRecord:
    """``build_transfer_set`` into the rule's ``transfer`` output, checked against the
    evaluation ``index`` where the rule has one; its record into ``record``."""
    index = EvaluationIndex.load(inputs["index"]) if inputs.get("index") else None
    record = build_transfer_set(settings, outputs["transfer"], index)
    write_json(outputs["record"], record_data(record))
    logger.info(
        "transfer set %s: %d examples, %d dropped for overlapping a test set",
        settings.name,
        record.examples,
        record.dropped,
    )
    return record


def finetune_teacher(
    run: FinetuneRun,
    *,
    outputs: Mapping[str, str],
    threads: int,
    gpus: int,
    checkpointing: Checkpointing | None = None,
) -> None:
    """Fine-tune and evaluate the teacher (``student.train_teacher``) on ``gpus`` GPUs."""
    from biocompact.task_distillation.job import run_job, teacher_spec
    from biocompact.training.launch import launch

    launch(run_job, teacher_spec(run, outputs, threads, checkpointing), gpus=gpus)


class SoftLabelInputs(TypedDict):
    """The named inputs of rule soft_labels."""

    teacher: str
    transfer: str
    data: Sequence[str]  # the task's files


def soft_labels(
    run: SoftLabelRun, *, inputs: SoftLabelInputs, outputs: Mapping[str, str], threads: int = 1
) -> dict[str, Any]:
    """Run the teacher (``inputs["teacher"]``) once over the transfer set
    (``inputs["transfer"]``); write the soft labels (``outputs["soft_labels"]``) and their
    sidecar (``outputs["meta"]``)."""
    import torch
    from transformers import AutoTokenizer
    from transformers.utils.logging import disable_progress_bar

    from biocompact.finetuning.pooling import load_sequence_classifier
    from biocompact.finetuning.tasks import get_family
    from biocompact.finetuning.trainer import predict_logits
    from biocompact.task_distillation.soft_labels import (
        SIGMOID,
        SOFTMAX,
        check_input_kind,
        model_labels,
        soft_label_columns,
        teacher_probabilities,
        write_soft_labels,
    )

    torch.set_num_threads(threads)
    disable_progress_bar()
    task, teacher_path, transfer_path = run.task, inputs["teacher"], inputs["transfer"]
    family = get_family(task.family, task.format)
    labels = model_labels(teacher_path)
    examples = read_transfer_set(transfer_path)
    check_input_kind(examples, family.read_split(task, "test"), run.transfer or transfer_path)
    tokenizer = AutoTokenizer.from_pretrained(teacher_path)
    model = load_sequence_classifier(teacher_path)
    encoded = family.encode(examples, tokenizer, labels, task)
    logits = torch.as_tensor(
        predict_logits(model, family, tokenizer, encoded.dataset, task.training, 0)
    )
    columns = soft_label_columns(labels)
    probabilities = teacher_probabilities(logits, run.temperature, labels.index(columns[0])).numpy()
    write_soft_labels(outputs["soft_labels"], examples, probabilities)
    meta = {
        "experiment": run.experiment,
        "transfer": run.transfer,
        "teacher_path": teacher_path,
        "labels": labels,
        "columns": columns,
        "activation": SIGMOID if len(labels) == 2 else SOFTMAX,
        "temperature": run.temperature,
        "examples": len(examples),
        "truncated_examples": encoded.stats.get("truncated_examples", 0),
        "mean_soft_label": [round(float(p), 6) for p in probabilities.mean(axis=0)],
    }
    write_json(outputs["meta"], meta)
    logger.info(
        "soft labels of %d transfer examples, mean %s", len(examples), meta["mean_soft_label"]
    )
    return meta


def train_students(
    run: StudentRun,
    *,
    inputs: StudentsInputs,
    outputs: Mapping[str, Sequence[str]],
    threads: int,
    gpus: int,
    checkpointing: Checkpointing | None = None,
) -> None:
    """Train and evaluate one experiment's students (``student.run_students``) on ``gpus``
    GPUs."""
    from biocompact.task_distillation.job import run_job, students_spec
    from biocompact.training.launch import launch

    launch(run_job, students_spec(run, inputs, outputs, threads, checkpointing), gpus=gpus)


def task_distillation_summary(
    evaluations: EvaluationRuns, *, outputs: Mapping[str, str]
) -> pd.DataFrame:
    """``write_summary`` of the ``evaluations`` runs to the rule's ``summary`` output."""
    return write_summary(outputs["summary"], evaluations.runs)
