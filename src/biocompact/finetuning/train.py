"""Fine-tune one model on one task with one seed; evaluate the best dev epoch on test."""

from __future__ import annotations

import logging
import tempfile
import time
from collections.abc import Mapping
from typing import Any

import torch
from transformers import (
    AutoTokenizer,
    EvalPrediction,
    PrinterCallback,
    Trainer,
    TrainerCallback,
    TrainingArguments,
    set_seed,
)
from transformers.utils.logging import disable_progress_bar

from biocompact.atomic import atomic_open, write_json
from biocompact.finetuning.record import metrics_record
from biocompact.finetuning.splits import load_splits
from biocompact.finetuning.tasks import get_family

logger = logging.getLogger(__name__)

EVAL_PREFIX = "eval_"


class KeepBestModel(TrainerCallback):
    """Keep a CPU copy of the weights of the best dev evaluation so far.

    Trainer's own ``load_best_model_at_end`` needs a full checkpoint (weights and
    optimizer state) written to disk at every evaluation; for compact models on CPU that
    costs about as much as an epoch of training, while a state dict in memory is cheap.
    Ties keep the earlier epoch.
    """

    def __init__(self, metric: str, metric_names: list[str]) -> None:
        self.metric = metric
        self.metric_names = metric_names
        self.best_epoch: int | None = None
        self.dev_metrics: dict[str, float] = {}
        self.state_dict: dict[str, torch.Tensor] = {}

    def on_evaluate(self, args, state, control, metrics=None, model=None, **kwargs) -> None:
        value = metrics[EVAL_PREFIX + self.metric]
        if self.best_epoch is None or value > self.dev_metrics[self.metric]:
            self.best_epoch = round(state.epoch)
            self.dev_metrics = {name: metrics[EVAL_PREFIX + name] for name in self.metric_names}
            self.state_dict = {
                name: tensor.detach().to("cpu", copy=True)
                for name, tensor in model.state_dict().items()
            }


class LogProgress(TrainerCallback):
    """Send the Trainer's per-epoch logs (loss, dev metrics) to the job log."""

    def on_log(self, args, state, control, logs=None, **kwargs) -> None:
        logger.info("epoch %.2f step %d: %s", state.epoch or 0, state.global_step, logs)


def _training_arguments(hyperparameters: Mapping, seed: int, output_dir: str) -> TrainingArguments:
    if not 0 <= hyperparameters["warmup_ratio"] < 1:
        # Trainer reads warmup_steps >= 1 as a number of steps, not a ratio
        raise ValueError(f"warmup_ratio must be in [0, 1), got {hyperparameters['warmup_ratio']}")
    return TrainingArguments(
        output_dir=output_dir,
        num_train_epochs=hyperparameters["epochs"],
        per_device_train_batch_size=hyperparameters["batch_size"],
        per_device_eval_batch_size=hyperparameters["batch_size"],
        learning_rate=hyperparameters["learning_rate"],
        warmup_steps=hyperparameters["warmup_ratio"],  # a float in [0, 1) is a ratio of all steps
        weight_decay=hyperparameters["weight_decay"],
        eval_strategy="epoch",
        logging_strategy="epoch",
        save_strategy="no",  # see KeepBestModel
        report_to=[],
        disable_tqdm=True,
        log_level="warning",
        seed=seed,
        data_seed=seed,
        dataloader_pin_memory=torch.cuda.is_available(),
    )


def finetune(
    model_path: str,
    task: Mapping,
    seed: int,
    out_metrics: str,
    out_predictions: str,
    threads: int = 1,
    *,
    model_name: str | None = None,
    task_name: str | None = None,
) -> dict[str, Any]:
    """Fine-tune ``model_path`` on ``task`` (a task config with resolved ``hyperparameters``),
    keep the best dev epoch by the task's primary metric, evaluate it once on test and write
    test predictions and metrics.json atomically. Returns the metrics record."""
    torch.set_num_threads(threads)
    disable_progress_bar()
    family = get_family(task["family"])
    splits = load_splits(task, family)
    primary = family.primary_metric(task, splits.labels)
    metric_names = list(family.metrics(task, splits.labels))
    tokenizer = AutoTokenizer.from_pretrained(model_path)
    train, dev, test = (
        family.encode(examples, tokenizer, splits.labels, task)
        for examples in (splits.train, splits.dev, splits.test)
    )
    logger.info(
        "%s on %s, seed %d: %d/%d/%d examples, labels %s, primary metric %s",
        model_path, task_name, seed, len(splits.train), len(splits.dev), len(splits.test),
        splits.labels, primary,
    )

    def dev_scores(prediction: EvalPrediction) -> dict[str, float]:
        predicted = family.decode(prediction.predictions, dev, splits.labels)
        return family.score(splits.dev, predicted, task, splits.labels)

    set_seed(seed)  # before the new head is initialised
    model = family.build_model(model_path, splits.labels)
    best = KeepBestModel(primary, metric_names)
    with tempfile.TemporaryDirectory(prefix="biocompact-finetune-") as scratch:
        trainer = Trainer(
            model=model,
            args=_training_arguments(task["hyperparameters"], seed, scratch),
            data_collator=family.data_collator(tokenizer),
            train_dataset=train.dataset,
            eval_dataset=dev.dataset,
            compute_metrics=dev_scores,
            callbacks=[best, LogProgress()],
        )
        trainer.remove_callback(PrinterCallback)
        started = time.perf_counter()
        trainer.train()
        train_seconds = time.perf_counter() - started
        model.load_state_dict(best.state_dict)
        trainer.compute_metrics = None  # dev_scores decodes dev only; test is scored below
        logits = trainer.predict(test.dataset).predictions
    predictions = family.decode(logits, test, splits.labels)
    with atomic_open(out_predictions) as handle:
        family.write_predictions(handle, splits.test, predictions)
    record = metrics_record(
        model=model_name or model_path,
        task_name=task_name,
        seed=seed,
        task=task,
        family=family,
        splits=splits,
        test_metrics=family.score(splits.test, predictions, task, splits.labels),
        dev_metrics=best.dev_metrics,
        best_epoch=best.best_epoch,
        train_seconds=train_seconds,
        model_path=model_path,
        **test.stats,
    )
    write_json(out_metrics, record)
    logger.info(
        "test %s = %.4f (best dev epoch %d)", primary, record["metrics"][primary], best.best_epoch
    )
    return record
