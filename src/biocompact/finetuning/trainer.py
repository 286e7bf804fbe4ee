"""The Hugging Face Trainer glue of fine-tuning: its arguments from a task's
hyperparameters, a Trainer with length-grouped training batches that logs to the job log,
callbacks that keep the best dev evaluation's weights and write the curves, training without
dev evaluation and prediction in dataset order (from length-sorted batches)."""

from __future__ import annotations

import inspect
import logging
import tempfile
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch
from datasets import Dataset
from torch.utils.data import DataLoader
from transformers import (
    EvalPrediction,
    PreTrainedModel,
    PreTrainedTokenizerBase,
    PrinterCallback,
    Trainer,
    TrainerCallback,
    TrainingArguments,
)
from transformers.trainer_pt_utils import LengthGroupedSampler

from biocompact.finetuning import checkpoints
from biocompact.finetuning.checkpoints import Checkpointing
from biocompact.finetuning.family import TaskFamily
from biocompact.finetuning.settings import Hyperparameters
from biocompact.tracking.trackers import ScalarTrackers
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


def training_arguments(
    hyperparameters: Hyperparameters,
    seed: int,
    output_dir: str,
    *,
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


def build_trainer(
    model: PreTrainedModel | torch.nn.Module,
    arguments: TrainingArguments,
    family: TaskFamily,
    tokenizer: PreTrainedTokenizerBase,
    train: Dataset | None,
    *,
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
    *,
    trainer_class: type[Trainer] = Trainer,
    label_names: Sequence[str] | None = None,
    checkpointing: Checkpointing | None = None,
) -> float:
    """Train ``model`` in place for the preset's epochs without dev evaluation (``label_names``:
    the dataset's target columns when ``trainer_class`` computes its own loss), resumably
    with ``checkpointing``; return the seconds trained (before a resume too)."""
    with tempfile.TemporaryDirectory(prefix="biocompact-train-") as scratch:
        arguments = training_arguments(
            hyperparameters, seed, scratch, evaluate=False, checkpointing=checkpointing
        )
        if label_names:
            arguments.label_names = list(label_names)
        trainer = build_trainer(
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
        arguments = training_arguments(hyperparameters, seed, scratch, evaluate=False)
        trainer = build_trainer(model, arguments, family, tokenizer, None)
        return in_dataset_order(trainer.predict(ordered).predictions, order)
