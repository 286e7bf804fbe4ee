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
from biocompact.taskfiles.settings import Hyperparameters
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


class RecipeTraining:
    """Trainer mixin for two hyperparameters: ``head_learning_rate``, the task head's
    parameters (those outside the base model, ``base_model_prefix``: the classifier) in
    optimizer groups of their own with that learning rate (the same weight decay split,
    warm-up and decay as the body's, through Trainer's ``create_optimizer``); and
    ``pos_weight``, a multi-label loss that weighs each label's positive term
    (``BCEWithLogitsLoss(pos_weight=...)``, a mean over the batch as the model's own)."""

    head_learning_rate: float | None = None
    pos_weight: torch.Tensor | None = None
    model: PreTrainedModel

    def create_optimizer(self, model: Any = None) -> torch.optim.Optimizer:
        optimizer = super().create_optimizer(model)  # type: ignore[misc]  # the Trainer mixed in
        if self.head_learning_rate is None:
            return optimizer
        model = model if model is not None else self.model
        head = {id(p) for p in head_parameters(model)}
        groups = []
        for group in optimizer.param_groups:
            settings = {key: value for key, value in group.items() if key != "params"}
            body = [p for p in group["params"] if id(p) not in head]
            heads = [p for p in group["params"] if id(p) in head]
            for params, rate in ((body, settings["lr"]), (heads, self.head_learning_rate)):
                if params:
                    groups.append({**settings, "params": params, "lr": rate})
        optimizer.param_groups = []
        for group in groups:
            optimizer.add_param_group(group)
        return optimizer

    def compute_loss(
        self,
        model: Any,
        inputs: dict[str, Any],
        return_outputs: bool = False,
        num_items_in_batch: Any = None,
    ) -> Any:
        if self.pos_weight is None or "labels" not in inputs:
            return super().compute_loss(  # type: ignore[misc]  # the Trainer mixed in
                model, inputs, return_outputs=return_outputs, num_items_in_batch=num_items_in_batch
            )
        inputs = dict(inputs)
        labels = inputs.pop("labels")
        outputs = model(**inputs)
        logits = outputs["logits"]
        weight = self.pos_weight.to(logits.device, logits.dtype)
        loss = torch.nn.BCEWithLogitsLoss(pos_weight=weight)(logits, labels.to(logits.dtype))
        return (loss, outputs) if return_outputs else loss


def head_parameters(model: torch.nn.Module) -> list[torch.nn.Parameter]:
    """The task head's parameters: those outside the base model (``base_model_prefix``)."""
    prefix = getattr(model, "base_model_prefix", "") + "."
    return [param for name, param in model.named_parameters() if not name.startswith(prefix)]


def label_pos_weights(targets: Sequence[Sequence[float]]) -> list[float]:
    """Each label's negatives / positives over ``targets`` (one 0/1 row per training
    example), as PyTorch's BCEWithLogitsLoss documents ``pos_weight``; 1 (unweighted) for a
    label without positives, whose positive term never occurs in training."""
    counts = np.asarray(targets, dtype=float)
    positives = counts.sum(axis=0)
    negatives = len(counts) - positives
    return [float(n / p) if p > 0 else 1.0 for n, p in zip(negatives, positives)]


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
    hyperparameters: Hyperparameters | None = None,
    **kwargs: Any,
) -> Trainer:
    """A Trainer (of ``trainer_class``; with ``length_grouped`` training batches; with the
    ``head_learning_rate`` and ``pos_weight`` of ``hyperparameters``, the latter's weights
    from ``train``'s labels) logging to the job log instead of printing."""
    head_rate = hyperparameters.head_learning_rate if hyperparameters else None
    weighted = bool(hyperparameters and hyperparameters.pos_weight == "auto")
    if head_rate is not None or weighted:
        trainer_class = type(f"Recipe{trainer_class.__name__}", (RecipeTraining, trainer_class), {})
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
    if isinstance(trainer, RecipeTraining):
        trainer.head_learning_rate = head_rate
        if weighted:
            if train is None or "labels" not in train.column_names:
                raise ValueError("pos_weight: auto needs the training split's labels")
            weights = label_pos_weights(train["labels"])
            logger.info("pos_weight of each label: %s", [round(w, 4) for w in weights])
            trainer.pos_weight = torch.tensor(weights)
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
            hyperparameters=hyperparameters,
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
