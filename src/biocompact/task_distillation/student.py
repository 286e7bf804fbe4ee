"""Stage 1 (the teacher: fine-tuned by the harness and saved) and stage 3 (students trained
on the teacher's soft labels, fine-tuned directly on the transfer set's own labels, the
baseline of section 4.2 of "BioXtract: Learning Biomedical Knowledge From General and Random
Data", or left untrained), each evaluated on the task's test set."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import torch
from datasets import Dataset
from transformers import (
    AutoTokenizer,
    PreTrainedTokenizerBase,
    Trainer,
    set_seed,
)
from transformers.utils.logging import disable_progress_bar

from biocompact.files.atomic import write_json
from biocompact.finetuning.checkpoints import Checkpointing, child
from biocompact.finetuning.family import TaskFamily
from biocompact.finetuning.pooling import apply_pooling, load_sequence_classifier
from biocompact.finetuning.splits import check_known_labels
from biocompact.finetuning.tasks import get_family
from biocompact.finetuning.train import FinetuneRun, finetune, run_pooling
from biocompact.finetuning.trainer import train_without_dev
from biocompact.records.base import record_data
from biocompact.records.classifier_evaluation import TEACHER, ClassifierEvaluation
from biocompact.task_distillation.evaluation import evaluate, read_predicted_labels
from biocompact.task_distillation.settings import classifier_training
from biocompact.task_distillation.soft_labels import (
    model_labels,
    read_soft_labels,
    soft_label_columns,
    soft_label_loss,
)
from biocompact.task_distillation.transfer import read_transfer_set
from biocompact.taskfiles.settings import FinetuningTask
from biocompact.training import distributed

logger = logging.getLogger(__name__)

SOFT_LABELS = "soft_labels"
DISTILLED, DIRECT, UNTRAINED = "distilled", "direct", "untrained"
METHODS = (DISTILLED, DIRECT, UNTRAINED)


class SoftLabelTrainer(Trainer):
    """A Trainer whose loss is ``soft_label_loss`` on the batch's ``soft_labels`` column."""

    loss_is_scaled_for_ga = False  # a per-batch mean
    temperature: float = 1.0
    positive: int = 1  # index of the label whose probability a binary soft label holds

    @classmethod
    def with_settings(cls, temperature: float, positive: int) -> type[SoftLabelTrainer]:
        """This Trainer class with the distillation ``temperature`` and ``positive`` label
        (a class, so the harness can mix its batching into it)."""
        return type(cls.__name__, (cls,), {"temperature": temperature, "positive": positive})

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        soft_labels = inputs.pop(SOFT_LABELS)
        outputs = model(**inputs)
        loss = soft_label_loss(outputs.logits, soft_labels, self.temperature, self.positive)
        return (loss, outputs) if return_outputs else loss


def train_teacher(
    run: FinetuneRun,
    *,
    outputs: Mapping[str, str],
    threads: int = 1,
    checkpointing: Checkpointing | None = None,
) -> ClassifierEvaluation:
    """Fine-tune as ``run`` says with the harness (``outputs`` metrics, predictions), save
    the model chosen on dev (``outputs["model"]``) and evaluate it like the students
    (``outputs["evaluation"]``, ``outputs["evaluation_predictions"]``); under torchrun
    every process trains and evaluates, rank 0 alone writes. With ``checkpointing`` the
    training resumes from its checkpoints."""
    record = finetune(run, outputs=outputs, threads=threads, checkpointing=checkpointing)
    assert record.train_examples is not None  # a fine-tuning run counts its examples
    distributed.barrier()  # the saved model, which every process evaluates, is rank 0's
    task, out_model = run.task, outputs["model"]
    family = get_family(task.family, task.format)
    model = load_sequence_classifier(out_model)
    tokenizer = AutoTokenizer.from_pretrained(out_model)
    scores = evaluate(
        model,
        tokenizer,
        family,
        task,
        model_labels(out_model),
        seed=run.seed,
        out_predictions=outputs["evaluation_predictions"],
    )
    result = ClassifierEvaluation(
        setting=TEACHER,
        model=run.model_name or run.model_path,
        task=task.name,
        seed=run.seed,
        model_path=out_model,
        scores=scores,
        train_examples=record.train_examples,
        train_seconds=record.train_seconds,
        hyperparameters=classifier_training(task.training),
    )
    if distributed.is_main():
        write_json(outputs["evaluation"], record_data(result))
    return result


def _training_data(
    method: str,
    data_path: str | None,
    family: TaskFamily,
    tokenizer: PreTrainedTokenizerBase,
    labels: Sequence[str],
    task: FinetuningTask,
) -> Dataset | None:
    """What a student trains on: transfer text with soft labels only (``distilled``), with
    its own labels (``direct``), or nothing (``untrained``)."""
    if method == UNTRAINED:
        return None
    assert data_path is not None  # the rule gives a trained student its data
    if method == DISTILLED:
        examples, soft = read_soft_labels(data_path)
        data = family.encode(examples, tokenizer, labels, task).dataset
        if "labels" in data.column_names:  # never the transfer set's ground truth
            data = data.remove_columns("labels")
        return data.add_column(SOFT_LABELS, soft)
    examples = read_transfer_set(data_path)
    if not all(example.label for example in examples):
        raise ValueError(f"{data_path}: direct fine-tuning needs a label on every transfer example")
    check_known_labels(examples, labels)
    return family.encode(examples, tokenizer, labels, task).dataset


@dataclass(frozen=True)
class StudentRun:
    """The students of one experiment: ``student_path`` trained by ``method`` (distilled on
    soft labels made at ``temperature``, direct on a transfer set's labels, or untrained)
    for ``task``'s hyperparameters, once per seed; ``experiment``, ``transfer`` and
    ``model_name`` are recorded with each evaluation."""

    method: str
    student_path: str
    task: FinetuningTask
    seeds: tuple[int, ...]
    temperature: float | None = None
    experiment: str | None = None
    transfer: str | None = None
    model_name: str | None = None

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"unknown student method {self.method!r}; known: {METHODS}")
        if self.method == DISTILLED and self.temperature is None:
            raise ValueError("distilled students need the temperature of their soft labels")


def run_students(
    run: StudentRun,
    *,
    inputs: Mapping[str, str],
    outputs: Mapping[str, Sequence[str]],
    threads: int = 1,
    checkpointing: Checkpointing | None = None,
) -> list[ClassifierEvaluation]:
    """For every seed, build the student with a fresh head for the labels of the teacher
    (``inputs["teacher"]``), train it (no dev selection: no ground truth of the task is
    used) on ``inputs["data"]`` (the soft labels or the transfer set; absent when
    untrained) and evaluate it (agreement with ``inputs["teacher_predictions"]``); write one
    evaluation (``outputs["evaluations"]``, ``outputs["predictions"]``) per seed (under
    torchrun every process trains and evaluates, rank 0 alone writes). With
    ``checkpointing`` each seed's training resumes from its checkpoints (a seed trained
    to the end, from its last)."""
    torch.set_num_threads(threads)
    disable_progress_bar()
    task, method = run.task, run.method
    family = get_family(task.family, task.format)
    labels = model_labels(inputs["teacher"])
    tokenizer = AutoTokenizer.from_pretrained(run.student_path)
    teacher_labels = read_predicted_labels(inputs["teacher_predictions"])
    data = _training_data(method, inputs.get("data"), family, tokenizer, labels, task)
    trainer_class: type[Trainer] = Trainer  # train_without_dev's defaults
    label_names: list[str] | None = None
    if method == DISTILLED:
        assert run.temperature is not None  # StudentRun checks: distilled students have one
        positive = labels.index(soft_label_columns(labels)[0])
        trainer_class = SoftLabelTrainer.with_settings(run.temperature, positive)
        label_names = [SOFT_LABELS]
    results = []
    for seed, out_evaluation, out_prediction in zip(
        run.seeds, outputs["evaluations"], outputs["predictions"], strict=True
    ):
        set_seed(seed)  # before the new head is initialised
        model = family.build_model(run.student_path, labels)
        pooling = run_pooling(family, task.training, run.student_path)
        if pooling is not None:
            apply_pooling(model, pooling[0])
        seconds = 0.0
        if data is not None:
            seconds = train_without_dev(
                model,
                family,
                tokenizer,
                data,
                task.training,
                seed,
                trainer_class=trainer_class,
                label_names=label_names,
                checkpointing=child(checkpointing, f"seed{seed}"),
            )
        scores = evaluate(
            model,
            tokenizer,
            family,
            task,
            labels,
            seed=seed,
            out_predictions=out_prediction,
            teacher_predictions=teacher_labels,
        )
        result = ClassifierEvaluation(
            experiment=run.experiment,
            transfer=run.transfer,
            setting=method,
            model=run.model_name or run.student_path,
            task=task.name,
            seed=seed,
            model_path=run.student_path,
            scores=scores,
            train_examples=len(data) if data is not None else 0,
            train_seconds=round(seconds, 3),
            hyperparameters=classifier_training(task.training),
            temperature=run.temperature,
        )
        if distributed.is_main():
            write_json(out_evaluation, record_data(result))
        logger.info("%s student, seed %d: %s", method, seed, scores.metrics)
        results.append(result)
    return results
