"""Fine-tune one model on one task with one seed: per cross-validation fold (when the
task has folds) and per grid point (when the preset has a grid), train, keep the best dev
evaluation, evaluate the chosen model once on test; write predictions and metrics.json."""

from __future__ import annotations

import inspect
import logging
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from datasets import Dataset
from torch.utils.data import DataLoader
from transformers import (
    AutoTokenizer,
    EvalPrediction,
    PreTrainedModel,
    PreTrainedTokenizerBase,
    PrinterCallback,
    Trainer,
    TrainerCallback,
    TrainingArguments,
    set_seed,
)
from transformers.trainer_pt_utils import LengthGroupedSampler
from transformers.utils.logging import disable_progress_bar

from biocompact.files.atomic import atomic_open, atomic_path, write_json
from biocompact.finetuning import checkpoints
from biocompact.finetuning.checkpoints import Checkpointing, child
from biocompact.finetuning.family import TaskFamily
from biocompact.finetuning.record import FoldResult, metrics_record, write_fold_predictions
from biocompact.finetuning.settings import GRID_KEYS, FinetuningTask, Hyperparameters
from biocompact.finetuning.splits import Splits, load_splits
from biocompact.finetuning.task_files import fold_tasks
from biocompact.finetuning.task_labels import saved_label_names
from biocompact.finetuning.tasks import get_family
from biocompact.locations import portable_location
from biocompact.release.cards import CardSettings, finetuned_model_card, hardware, write_card
from biocompact.tracking.trackers import CurveDestination, ScalarTrackers, TrackingSettings
from biocompact.training import distributed
from biocompact.training.precision import native_bf16

logger = logging.getLogger(__name__)

EVAL_PREFIX = "eval_"
# On a GPU evaluation keeps no activations for a backward pass: batches this large cost no
# more memory than training ones and pay the per-batch overhead 4x (batch 16) less often. On
# a CPU the training batch size (larger batches measured slower on the demo's NER, with
# evaluation batches in dataset order).
MIN_GPU_EVAL_BATCH_SIZE = 64
TENSORBOARD_DIR = "tensorboard"


class KeepBestModel(TrainerCallback):
    """Keep a CPU copy of the weights of the best dev evaluation so far.

    Trainer's own ``load_best_model_at_end`` needs a full checkpoint (weights and
    optimizer state) written to disk at every evaluation; for compact models on CPU that
    costs about as much as an epoch of training, while a state dict in memory is cheap.
    Ties keep the earlier evaluation. A resumable training saves and restores its state
    with each checkpoint (``checkpoints.train``).
    """

    RESUMED = ("best_epoch", "best_step", "dev_metrics", "state_dict")

    def __init__(self, metric: str, metric_names: list[str], by_epoch: bool) -> None:
        self.metric = metric
        self.metric_names = metric_names
        self.by_epoch = by_epoch
        self.best_epoch: float | None = None
        self.best_step: int | None = None
        self.dev_metrics: dict[str, float] = {}
        self.state_dict: dict[str, torch.Tensor] = {}

    def on_evaluate(self, args, state, control, metrics=None, model=None, **kwargs) -> None:
        value = metrics[EVAL_PREFIX + self.metric]
        if self.best_step is None or value > self.dev_metrics[self.metric]:
            self.best_epoch = round(state.epoch) if self.by_epoch else round(state.epoch, 2)
            self.best_step = state.global_step
            self.dev_metrics = {name: metrics[EVAL_PREFIX + name] for name in self.metric_names}
            self.state_dict = {
                name: tensor.detach().to("cpu", copy=True)
                for name, tensor in model.state_dict().items()
            }

    def state(self) -> dict[str, Any]:
        """The best evaluation so far and its weights."""
        return {name: getattr(self, name) for name in self.RESUMED}

    def restore(self, state: dict[str, Any]) -> None:
        """Continue from a saved ``state``."""
        for name in self.RESUMED:
            setattr(self, name, state[name])


class LengthGroupedTraining:
    """Trainer mixin: training batches of examples of similar length, each padded only to its
    longest (transformers' ``LengthGroupedSampler``: random megabatches of 50 batches, sorted
    within), through Trainer's public ``get_train_dataloader`` hook. Not
    ``train_sampling_strategy="group_by_length"``, which also shuffles evaluation into
    random megabatches; evaluation runs on a length-sorted copy instead (``length_sorted``)."""

    # what it reads of the Trainer it is mixed into
    model: PreTrainedModel
    train_dataset: Dataset
    label_names: list[str]
    args: TrainingArguments
    accelerator: Any  # accelerate's Accelerator (untyped)
    data_collator: Callable

    def get_train_dataloader(self) -> DataLoader:
        # the loader Trainer builds (the columns its model's forward takes, as Trainer keeps
        # them; prepared by its accelerator) with the grouping sampler; under torchrun the
        # accelerator deals its batches out to the processes, the sampler's generator
        # synchronised from rank 0 every epoch so that all draw the same order
        accepted = {*inspect.signature(self.model.forward).parameters, "label", "label_ids"}
        dataset = self.train_dataset
        unused = [
            name for name in dataset.column_names if name not in {*accepted, *self.label_names}
        ]
        dataset = dataset.remove_columns(unused)
        sampler = LengthGroupedSampler(
            self.args.train_batch_size * self.args.gradient_accumulation_steps,
            lengths=[len(ids) for ids in dataset["input_ids"]],
        )
        return self.accelerator.prepare(
            DataLoader(
                dataset,
                batch_size=self.args.train_batch_size,
                sampler=sampler,
                collate_fn=self.data_collator,
                num_workers=self.args.dataloader_num_workers,
                pin_memory=self.args.dataloader_pin_memory,
                drop_last=self.args.dataloader_drop_last,
            )
        )


def length_sorted(dataset: Dataset) -> tuple[Dataset, np.ndarray]:
    """``dataset`` from its shortest example to its longest (ties in dataset order), and that
    order. A Trainer evaluates and predicts in dataset order: on the sorted copy each batch is
    padded only to its longest (on the demo's NER about 60% of a dataset-order batch holds
    tokens, 97% of a sorted one) for the same predictions, which ``in_dataset_order`` puts
    back. Under torchrun the Trainer deals the sorted batches out to the processes in turn
    and gathers their outputs back in that order (less the batches repeated to even them
    out), so the order holds there too."""
    order = np.argsort([len(ids) for ids in dataset["input_ids"]], kind="stable")
    return dataset.select(order), order


def in_dataset_order(outputs: Any, order: np.ndarray) -> Any:
    """Rows of ``outputs`` (an array, a tuple of arrays or None) produced in ``order``, put
    back in dataset order."""
    if isinstance(outputs, tuple):
        return tuple(in_dataset_order(output, order) for output in outputs)
    if outputs is None:
        return None
    restored = np.empty_like(outputs)
    restored[order] = outputs
    return restored


def metrics_in_dataset_order(
    compute_metrics: Callable[[EvalPrediction], dict[str, float]], order: np.ndarray
) -> Callable[[EvalPrediction], dict[str, float]]:
    """``compute_metrics`` of a Trainer evaluating a set in ``order``, given the predictions
    and labels in dataset order."""

    def metrics(prediction: EvalPrediction) -> dict[str, float]:
        return compute_metrics(
            EvalPrediction(
                predictions=in_dataset_order(prediction.predictions, order),
                label_ids=in_dataset_order(prediction.label_ids, order),
            )
        )

    return metrics


class LogProgress(TrainerCallback):
    """Send the Trainer's logs (loss, dev metrics) to the job log."""

    def on_log(self, args, state, control, logs=None, **kwargs) -> None:
        logger.info("epoch %.2f step %d: %s", state.epoch or 0, state.global_step, logs)


class TensorBoardCurves(TrainerCallback):
    """Write the Trainer's logs as TensorBoard curves: ``train/loss``, ``train/learning_rate``
    and the like, ``dev/<metric>`` for every dev evaluation."""

    def __init__(self, writer: ScalarTrackers) -> None:
        self.writer = writer

    def on_log(self, args, state, control, logs=None, **kwargs) -> None:
        scalars = {
            f"dev/{name.removeprefix(EVAL_PREFIX)}"
            if name.startswith(EVAL_PREFIX)
            else f"train/{name}": value
            for name, value in (logs or {}).items()
            if isinstance(value, int | float)
        }
        if scalars:
            self.writer.add(state.global_step, scalars)

    def on_train_end(self, args, state, control, **kwargs) -> None:
        self.writer.close()


def _training_arguments(
    hyperparameters: Hyperparameters,
    seed: int,
    output_dir: str,
    evaluate: bool = True,
    checkpointing: Checkpointing | None = None,
) -> TrainingArguments:
    """The Trainer's arguments; it saves checkpoints into ``checkpointing`` only (else its
    ``output_dir`` is scratch: the best dev weights are kept by ``KeepBestModel``)."""
    eval_steps = hyperparameters.eval_steps
    device = distributed.device()
    strategy = ("steps" if eval_steps else "epoch") if evaluate else "no"
    saving = {"output_dir": output_dir, **checkpoints.training_arguments(checkpointing)}
    return TrainingArguments(
        **saving,
        num_train_epochs=hyperparameters.epochs,
        per_device_train_batch_size=hyperparameters.batch_size,
        per_device_eval_batch_size=max(
            hyperparameters.batch_size,
            MIN_GPU_EVAL_BATCH_SIZE if device.type == "cuda" else 0,
        ),
        bf16=hyperparameters.bf16 and native_bf16(device),
        use_cpu=device.type == "cpu",
        learning_rate=hyperparameters.learning_rate,
        warmup_steps=hyperparameters.warmup_ratio,  # a float in [0, 1) is a ratio of all steps
        weight_decay=hyperparameters.weight_decay,
        eval_strategy=strategy,
        eval_steps=eval_steps,
        logging_strategy="steps" if eval_steps else "epoch",
        logging_steps=eval_steps or 500,
        report_to=[],
        disable_tqdm=True,
        log_level="warning",
        seed=seed,
        data_seed=seed,
        dataloader_pin_memory=device.type == "cuda",
    )


def _trainer(
    model: PreTrainedModel | torch.nn.Module,
    arguments: TrainingArguments,
    family: TaskFamily,
    tokenizer: PreTrainedTokenizerBase,
    train: Dataset | None,
    callbacks: Sequence[TrainerCallback] = (),
    trainer_class: type[Trainer] = Trainer,
    length_grouped: bool = False,
    **kwargs: Any,
) -> Trainer:
    """A Trainer (of ``trainer_class``; with ``length_grouped`` training batches) logging to
    the job log instead of printing."""
    if length_grouped:
        trainer_class = type(
            f"LengthGrouped{trainer_class.__name__}", (LengthGroupedTraining, trainer_class), {}
        )
    trainer = trainer_class(
        model=model,
        args=arguments,
        data_collator=family.data_collator(tokenizer),
        train_dataset=train,
        callbacks=[*callbacks, LogProgress()],
        **kwargs,
    )
    trainer.remove_callback(PrinterCallback)
    return trainer


def train_without_dev(
    model: PreTrainedModel,
    family: TaskFamily,
    tokenizer: PreTrainedTokenizerBase,
    train: Dataset,
    hyperparameters: Hyperparameters,
    seed: int,
    trainer_class: type[Trainer] = Trainer,
    label_names: Sequence[str] | None = None,
    checkpointing: Checkpointing | None = None,
) -> float:
    """Train ``model`` in place for the preset's epochs without dev evaluation (``label_names``:
    the dataset's target columns when ``trainer_class`` computes its own loss), resumably
    with ``checkpointing``; return the seconds trained (before a resume too)."""
    with tempfile.TemporaryDirectory(prefix="biocompact-train-") as scratch:
        arguments = _training_arguments(
            hyperparameters, seed, scratch, evaluate=False, checkpointing=checkpointing
        )
        if label_names:
            arguments.label_names = list(label_names)
        trainer = _trainer(
            model,
            arguments,
            family,
            tokenizer,
            train,
            trainer_class=trainer_class,
            length_grouped=hyperparameters.length_grouped_batches,
        )
        return checkpoints.train(trainer, checkpointing)


def predict_logits(
    model: PreTrainedModel | torch.nn.Module,  # a compressed model too (an ONNX Runtime one)
    family: TaskFamily,
    tokenizer: PreTrainedTokenizerBase,
    data: Dataset,
    hyperparameters: Hyperparameters,
    seed: int,
) -> np.ndarray:
    """The model's outputs on ``data`` (batched as the preset says, in length order)."""
    ordered, order = length_sorted(data)
    with tempfile.TemporaryDirectory(prefix="biocompact-predict-") as scratch:
        arguments = _training_arguments(hyperparameters, seed, scratch, evaluate=False)
        trainer = _trainer(model, arguments, family, tokenizer, None)
        return in_dataset_order(trainer.predict(ordered).predictions, order)


def _intermediate_model(
    model_path: str,
    family: TaskFamily,
    tokenizer,
    task: FinetuningTask,
    hyperparameters: Hyperparameters,
    seed: int,
    labels: list[str],
    checkpointing: Checkpointing | None = None,
) -> PreTrainedModel:
    """A fresh model for ``labels``; first trained on the task's ``intermediate`` file
    (same format, no dev selection) for ``intermediate_epochs`` when one is given."""
    set_seed(seed)  # before the new head is initialised
    model = family.build_model(model_path, labels)
    if task.intermediate:
        examples = family.read(task.intermediate, task.format)
        data = family.encode(examples, tokenizer, labels, task).dataset
        settings = replace(hyperparameters, epochs=hyperparameters.intermediate_epochs)
        train_without_dev(
            model, family, tokenizer, data, settings, seed, checkpointing=checkpointing
        )
        logger.info(
            "intermediate fine-tuning on %d examples of %s", len(examples), task.intermediate
        )
    return model


def _train_point(
    model_path: str,
    family: TaskFamily,
    tokenizer,
    task: FinetuningTask,
    splits: Splits,
    encoded: tuple,
    hyperparameters: Hyperparameters,
    seed: int,
    curves: CurveDestination | None = None,
    checkpointing: Checkpointing | None = None,
) -> tuple[PreTrainedModel, KeepBestModel, float]:
    """Train one grid point; the model comes back holding its best dev weights. With
    ``curves``, its curves go to a part of it named after the point; with
    ``checkpointing``, it resumes from its checkpoints."""
    train, dev = encoded
    primary = family.primary_metric(task, splits.labels)
    metric_names = list(family.metrics(task, splits.labels))

    def dev_scores(prediction: EvalPrediction) -> dict[str, float]:
        predicted = family.decode(prediction.predictions, dev, splits.labels)
        return family.score(splits.dev, predicted, task, splits.labels)

    model = _intermediate_model(
        model_path,
        family,
        tokenizer,
        task,
        hyperparameters,
        seed,
        splits.labels,
        child(checkpointing, "intermediate"),
    )
    best = KeepBestModel(primary, metric_names, by_epoch=not hyperparameters.eval_steps)
    callbacks: list[TrainerCallback] = [best]
    if curves is not None:
        point_curves = curves.child(
            point_name(hyperparameters), hyperparameters=hyperparameters.as_record()
        )
        callbacks.append(TensorBoardCurves(point_curves.open()))
    dev_sorted, dev_order = length_sorted(dev.dataset)
    checkpointing = child(checkpointing, "task")
    with tempfile.TemporaryDirectory(prefix="biocompact-finetune-") as scratch:
        arguments = _training_arguments(hyperparameters, seed, scratch, checkpointing=checkpointing)
        trainer = _trainer(
            model,
            arguments,
            family,
            tokenizer,
            train.dataset,
            callbacks,
            length_grouped=hyperparameters.length_grouped_batches,
            eval_dataset=dev_sorted,
            compute_metrics=metrics_in_dataset_order(dev_scores, dev_order),
        )
        seconds = checkpoints.train(trainer, checkpointing, best)
    model.load_state_dict(best.state_dict)
    best.state_dict = {}
    return model, best, seconds


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
    fold: str | None,
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
        fold,
        run.seed,
        len(splits.train),
        len(splits.dev),
        len(splits.test),
        splits.labels,
        primary,
    )
    search, chosen, train_seconds = [], None, 0.0
    for point in task.training.grid_points():
        model, best, seconds = _train_point(
            run.model_path,
            family,
            tokenizer,
            task,
            splits,
            (train, dev),
            point,
            run.seed,
            curves,
            child(checkpointing, point_name(point)),
        )
        train_seconds += seconds
        search.append(
            {
                **{key: getattr(point, key) for key in GRID_KEYS},
                "dev": best.dev_metrics[primary],
                "best_epoch": best.best_epoch,
            }
        )
        if chosen is None or best.dev_metrics[primary] > chosen[2].dev_metrics[primary]:
            chosen = (point, model, best)
        del model
    assert chosen is not None  # a grid has at least one point
    point, model, best = chosen
    if out_model and distributed.is_main():
        model.config.id2label = saved_labels
        model.config.label2id = {name: index for index, name in model.config.id2label.items()}
        with atomic_path(out_model, is_dir=True) as folder:
            model.save_pretrained(folder)
            tokenizer.save_pretrained(folder)
    logits = predict_logits(model, family, tokenizer, test.dataset, point, run.seed)
    predictions = family.decode(logits, test, splits.labels)
    test_metrics = family.score(splits.test, predictions, task, splits.labels)
    # the floor the card compares the model with, on the same test examples
    baseline = family.majority(splits.train, splits.test)
    baseline_metrics = family.score(splits.test, baseline, task, splits.labels)
    logger.info("fold %s: test %s (majority class %s)", fold, test_metrics, baseline_metrics)
    return FoldResult(
        fold=fold,
        splits=splits,
        test_metrics=test_metrics,
        dev_metrics=best.dev_metrics,
        best_epoch=best.best_epoch,
        best_step=best.best_step,
        train_seconds=train_seconds,
        predictions=predictions,
        hyperparameters=point,
        grid_search=search if len(search) > 1 else None,
        stats=test.stats,
        baseline_metrics=baseline_metrics,
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
) -> dict[str, Any]:
    """Fine-tune as ``run`` says and write test predictions (``outputs["predictions"]``) and
    metrics.json (``outputs["metrics"]``) atomically, with TensorBoard curves of training
    and dev scores in ``tensorboard/`` beside metrics.json (the median over folds for a
    cross-validated task); save the model chosen on dev to the folder ``outputs["model"]``
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
    # rank 0 alone writes: the curves, the files and the model below
    curves = (
        CurveDestination(
            Path(outputs["metrics"]).parent / TENSORBOARD_DIR,  # beside metrics.json
            f"finetuning/{model_name}/{task.name}/seed{seed}",
            run.tracking,
            {
                "stage": "finetuning",
                "model": model_name,
                "model_path": portable_location(run.model_path),
                "task": task.name,
                "seed": seed,
                "config": task.entry,
            },
        )
        if distributed.is_main()
        else None
    )
    results = [
        _run_fold(
            run,
            family,
            tokenizer,
            fold_task,
            fold,
            out_model,
            curves.child(f"fold-{fold}", fold=fold) if fold is not None and curves else curves,
            checkpointing if fold is None else child(checkpointing, f"fold-{fold}"),
        )
        for fold, fold_task in folds
    ]
    if distributed.is_main():
        with atomic_open(outputs["predictions"]) as handle:
            write_fold_predictions(handle, family, results)
    record = metrics_record(
        model=model_name,
        task_name=task.name,
        seed=seed,
        task=task,
        family=family,
        results=results,
        model_path=run.model_path,
    )
    record["hardware"] = hardware()
    if not distributed.is_main():
        return record
    write_json(outputs["metrics"], record)
    if out_model:
        card = finetuned_model_card(
            out_model,
            [record],
            record,
            f"One run, seed {seed}.",
            task.entry,
            run.card_settings,
        )
        write_card(card, out_model)
    primary = record["primary_metric"]
    logger.info("test %s = %.4f", primary, record["metrics"][primary])
    return record
