"""Fine-tune one model on one task with one seed: per cross-validation fold (when the
task has folds) and per grid point (when the preset has a grid), train, keep the best dev
evaluation, evaluate the chosen model once on test; write predictions and metrics.json.
The Trainer beneath it is set up in ``finetuning.trainer``."""

from __future__ import annotations

import logging
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import torch
from transformers import (
    AutoTokenizer,
    EvalPrediction,
    PreTrainedModel,
    PreTrainedTokenizerBase,
    TrainerCallback,
    set_seed,
)
from transformers.utils.logging import disable_progress_bar

from biocompact.files.atomic import atomic_path
from biocompact.finetuning import checkpoints
from biocompact.finetuning.baseline import floor_predictions
from biocompact.finetuning.checkpoints import Checkpointing, child
from biocompact.finetuning.family import SEQUENCE_CLASSIFICATION, Encoded, TaskFamily
from biocompact.finetuning.pooling import apply_pooling, pooling_text, resolve_pooling
from biocompact.finetuning.record import FoldResult, metrics_record, write_run_files
from biocompact.finetuning.splits import Splits, load_splits
from biocompact.finetuning.task_labels import saved_label_names
from biocompact.finetuning.tasks import get_family
from biocompact.finetuning.trainer import (
    KeepBestModel,
    TensorBoardCurves,
    build_trainer,
    length_sorted,
    metrics_in_dataset_order,
    predict_logits,
    train_without_dev,
    training_arguments,
)
from biocompact.locations import portable_location
from biocompact.records.metrics import MAJORITY_CLASS, MetricsRecord
from biocompact.release.cards import finetuned_model_card, hardware, write_card
from biocompact.release.settings import CardSettings
from biocompact.taskfiles.folds import fold_tasks
from biocompact.taskfiles.settings import GRID_KEYS, FinetuningTask, Hyperparameters
from biocompact.tracking.trackers import CurveDestination, TrackingSettings
from biocompact.training import distributed

logger = logging.getLogger(__name__)

TENSORBOARD_DIR = "tensorboard"


@dataclass(frozen=True)
class Fold:
    """What every grid point of one fold trains on: the model to start from and the seed,
    the fold's task, its splits and its encoded training and dev sets."""

    model_path: str
    seed: int
    family: TaskFamily
    tokenizer: PreTrainedTokenizerBase
    task: FinetuningTask
    splits: Splits
    train: Encoded
    dev: Encoded


@dataclass
class TrainedPoint:
    """One grid point trained: its hyperparameters, the model holding the weights of its
    best dev evaluation, that evaluation and the seconds it trained."""

    hyperparameters: Hyperparameters
    model: PreTrainedModel
    best: KeepBestModel
    seconds: float


def _intermediate_model(
    fold: Fold, hyperparameters: Hyperparameters, checkpointing: Checkpointing | None
) -> PreTrainedModel:
    """A fresh model for the fold's labels; first trained on the task's ``intermediate``
    file (same format, no dev selection) for ``intermediate_epochs`` when one is given."""
    set_seed(fold.seed)  # before the new head is initialised
    model = fold.family.build_model(fold.model_path, fold.splits.labels)
    pooling = run_pooling(fold.family, hyperparameters, fold.model_path)
    if pooling is not None:
        apply_pooling(model, pooling[0])
    task = fold.task
    if task.intermediate:
        examples = fold.family.read_task_file(task, task.intermediate)
        data = fold.family.encode(examples, fold.tokenizer, fold.splits.labels, task).dataset
        settings = replace(hyperparameters, epochs=hyperparameters.intermediate_epochs)
        train_without_dev(
            model,
            fold.family,
            fold.tokenizer,
            data,
            settings,
            fold.seed,
            checkpointing=checkpointing,
        )
        logger.info(
            "intermediate fine-tuning on %d examples of %s", len(examples), task.intermediate
        )
    return model


def run_pooling(
    family: TaskFamily, hyperparameters: Hyperparameters, model_path: str
) -> tuple[str, str] | None:
    """The pooling a sequence-level family's model of ``model_path`` gets (``cls`` or
    ``mean``, with the reason); None for a family whose model reads every token."""
    if family.auto_model != SEQUENCE_CLASSIFICATION:
        return None
    return resolve_pooling(hyperparameters.pooling, model_path)


def _train_point(
    fold: Fold,
    hyperparameters: Hyperparameters,
    *,
    curves: CurveDestination | None = None,
    checkpointing: Checkpointing | None = None,
) -> TrainedPoint:
    """Train one grid point of ``fold``, its model back at its best dev weights. With
    ``curves``, its curves go to a part of it named after the point; with
    ``checkpointing``, it resumes from its checkpoints."""
    family, splits, task = fold.family, fold.splits, fold.task
    primary = family.primary_metric(task, splits.labels)
    metric_names = list(family.metrics(task, splits.labels))

    def dev_scores(prediction: EvalPrediction) -> dict[str, float]:
        predicted = family.decode(prediction.predictions, fold.dev, splits.labels)
        return family.score(splits.dev, predicted, task, splits.labels)

    model = _intermediate_model(fold, hyperparameters, child(checkpointing, "intermediate"))
    best = KeepBestModel(primary, metric_names, by_epoch=not hyperparameters.eval_steps)
    callbacks: list[TrainerCallback] = [best]
    if curves is not None:
        point_curves = curves.child(
            point_name(hyperparameters), hyperparameters=hyperparameters.as_record()
        )
        callbacks.append(TensorBoardCurves(point_curves.open()))
    dev_sorted, dev_order = length_sorted(fold.dev.dataset)
    checkpointing = child(checkpointing, "task")
    with tempfile.TemporaryDirectory(prefix="biocompact-finetune-") as scratch:
        arguments = training_arguments(
            hyperparameters, fold.seed, scratch, checkpointing=checkpointing
        )
        trainer = build_trainer(
            model,
            arguments,
            family,
            fold.tokenizer,
            fold.train.dataset,
            callbacks=callbacks,
            length_grouped=hyperparameters.length_grouped_batches,
            hyperparameters=hyperparameters,
            eval_dataset=dev_sorted,
            compute_metrics=metrics_in_dataset_order(dev_scores, dev_order),
        )
        seconds = checkpoints.train(trainer, checkpointing, best)
    model.load_state_dict(best.state_dict)
    best.state_dict = {}
    return TrainedPoint(hyperparameters, model, best, seconds)


def point_name(hyperparameters: Hyperparameters) -> str:
    """A grid point's name: its curves' and its checkpoints' folder."""
    return (
        f"lr{hyperparameters.learning_rate}-batch{hyperparameters.batch_size}"
        f"-epochs{hyperparameters.epochs}"
    )


def _run_fold(
    run: FinetuneRun,
    family: TaskFamily,
    tokenizer: PreTrainedTokenizerBase,
    task: FinetuningTask,
    fold_name: str | None,
    *,
    out_model: str | None = None,
    curves: CurveDestination | None = None,
    checkpointing: Checkpointing | None = None,
) -> FoldResult:
    """Train every grid point on one fold of ``task``, choose the best on dev, score it
    once on test; save the chosen model with its tokenizer to ``out_model`` when given (its
    labels renamed by ``run.saved_label_names``); the curves of its grid points go to
    ``curves``, their checkpoints (if any) to ``checkpointing``."""
    splits = load_splits(task, family)
    primary = family.primary_metric(task, splits.labels)
    # checked before training: a wrong name stops the job at once
    saved_labels = saved_label_names(
        splits.labels,
        run.saved_label_names,
        task.family,
        f"finetuning.tasks.{task.name}.label_names",
        task.train,
    )
    train, dev, test = (
        family.encode(examples, tokenizer, splits.labels, task)
        for examples in (splits.train, splits.dev, splits.test)
    )
    logger.info(
        "%s on %s (fold %s), seed %d: %d/%d/%d examples, labels %s, primary metric %s",
        run.model_path,
        task.name,
        fold_name,
        run.seed,
        len(splits.train),
        len(splits.dev),
        len(splits.test),
        splits.labels,
        primary,
    )
    fold = Fold(run.model_path, run.seed, family, tokenizer, task, splits, train, dev)
    search: list[dict[str, Any]] = []
    chosen: TrainedPoint | None = None
    train_seconds = 0.0
    for point in task.training.grid_points():
        trained = _train_point(
            fold, point, curves=curves, checkpointing=child(checkpointing, point_name(point))
        )
        train_seconds += trained.seconds
        search.append(
            {
                **{key: getattr(point, key) for key in GRID_KEYS},
                "dev": trained.best.dev_metrics[primary],
                "best_epoch": trained.best.best_epoch,
            }
        )
        if chosen is None or trained.best.dev_metrics[primary] > chosen.best.dev_metrics[primary]:
            chosen = trained
        del trained  # a point not chosen frees its model
    assert chosen is not None  # a grid has at least one point
    model, best = chosen.model, chosen.best
    if out_model and distributed.is_main():
        model.config.id2label = saved_labels
        model.config.label2id = {name: index for index, name in model.config.id2label.items()}
        with atomic_path(out_model, is_dir=True) as folder:
            model.save_pretrained(folder)
            tokenizer.save_pretrained(folder)
    logits = predict_logits(
        model, family, tokenizer, test.dataset, chosen.hyperparameters, run.seed
    )
    predictions = family.decode(logits, test, splits.labels)
    test_metrics = family.score(splits.test, predictions, task, splits.labels)
    # the constant floors the card compares the model with, on the same test examples
    floors = {
        floor: family.score(splits.test, predicted, task, splits.labels)
        for floor, predicted in floor_predictions(family, splits, task, "test").items()
    }
    baseline_metrics = floors.pop(MAJORITY_CLASS)
    logger.info("fold %s: test %s (constant floors %s)", fold_name, test_metrics, floors)
    return FoldResult(
        fold=fold_name,
        splits=splits,
        test_metrics=test_metrics,
        dev_metrics=best.dev_metrics,
        best_epoch=best.best_epoch,
        best_step=best.best_step,
        train_seconds=train_seconds,
        predictions=predictions,
        hyperparameters=chosen.hyperparameters,
        grid_search=search if len(search) > 1 else None,
        stats=test.stats,
        baseline_metrics=baseline_metrics,
        floor_metrics=floors,
    )


@dataclass(frozen=True)
class FinetuneRun:
    """One fine-tuning run: ``model_path`` on ``task`` (with its hyperparameters) with
    ``seed``; ``model_name`` names the model in the record, the curves and the card
    (default: ``model_path``), ``saved_label_names`` the labels in a saved model's
    ``id2label`` (a task's ``label_names``, see ``task_labels.saved_label_names``; None: as in
    the task's files), ``card_settings`` are the config's ``model_cards`` and ``tracking``
    the trackers that also get the curves."""

    model_path: str
    task: FinetuningTask
    seed: int
    model_name: str | None = None
    saved_label_names: Mapping[str, str] | None = None
    card_settings: CardSettings = field(default_factory=CardSettings)
    tracking: TrackingSettings | None = None


def finetune(
    run: FinetuneRun,
    *,
    outputs: Mapping[str, str],
    threads: int = 1,
    checkpointing: Checkpointing | None = None,
) -> MetricsRecord:
    """Fine-tune as ``run`` says and write test predictions (``outputs["predictions"]``) and
    metrics.json (``outputs["metrics"]``) atomically, with TensorBoard curves of training
    and dev scores in ``tensorboard/`` beside metrics.json (the median over folds for a
    cross-validated task; an earlier run's folder there deleted first, except where a job
    resumes from ``checkpointing``); save the model chosen on dev to the folder ``outputs["model"]``
    when given (a task without folds only), its ``id2label`` renamed by
    ``run.saved_label_names``, with a model card of this run. The
    curves also go to the trackers of ``run.tracking``, one run
    ``finetuning/MODEL/TASK/seedN[/fold-F]/POINT`` per grid point. Under torchrun every
    process trains and predicts, rank 0 alone writes. With ``checkpointing``, each training
    saves resumable checkpoints there and a job started again resumes from them (task
    distillation's teacher). Returns the metrics record."""
    torch.set_num_threads(threads)
    disable_progress_bar()
    task, seed, model_name = run.task, run.seed, run.model_name or run.model_path
    out_model = outputs.get("model")
    family = get_family(task.family, task.format)
    folds = fold_tasks(task)
    if out_model and len(folds) > 1:
        raise ValueError(
            f"task {task.name!r}: cannot save one model of a cross-validated task "
            f"({len(folds)} folds)"
        )
    tokenizer = AutoTokenizer.from_pretrained(run.model_path)
    curves_folder = Path(outputs["metrics"]).parent / TENSORBOARD_DIR  # beside metrics.json
    if distributed.is_main() and checkpointing is None and curves_folder.exists():
        shutil.rmtree(curves_folder)  # an earlier run's curves (another grid, other folds)
    # rank 0 alone writes: the curves, the files and the model below
    curves = (
        CurveDestination(
            curves_folder,
            f"finetuning/{model_name}/{task.name}/seed{seed}",
            run.tracking,
            {
                "stage": "finetuning",
                "model": model_name,
                "model_path": portable_location(run.model_path),
                "task": task.name,
                "seed": seed,
                "config": task.as_entry(),
            },
        )
        if distributed.is_main()
        else None
    )
    pooling = run_pooling(family, task.training, run.model_path)
    results = [
        _run_fold(
            run,
            family,
            tokenizer,
            fold_task,
            fold,
            out_model=out_model,
            curves=curves.child(f"fold-{fold}", fold=fold)
            if fold is not None and curves
            else curves,
            checkpointing=checkpointing if fold is None else child(checkpointing, f"fold-{fold}"),
        )
        for fold, fold_task in folds
    ]
    record = replace(
        metrics_record(
            model=model_name,
            seed=seed,
            task=task,
            family=family,
            results=results,
            model_path=run.model_path,
        ),
        hardware=hardware(),
        pooling=None if pooling is None else pooling_text(*pooling),
    )
    if not distributed.is_main():
        return record
    write_run_files(outputs, family, results, record)
    if out_model:
        card = finetuned_model_card(
            out_model,
            [record],
            record,
            f"One run, seed {seed}.",
            task,
            run.card_settings,
            pipeline_tag=family.pipeline_tag,
        )
        write_card(card, out_model)
    logger.info("test %s = %.4f", record.primary_metric, record.metrics[record.primary_metric])
    return record
