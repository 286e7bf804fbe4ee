"""Re-score one format of a fine-tuned model on its task's test set with the harness (the
fine-tuning stage's batching, decoding and metrics) and time it on CPU with the efficiency
stage's measurement; written as ``evaluation.json`` and the harness's ``predictions.tsv``."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import torch
from transformers import AutoTokenizer
from transformers.utils.logging import disable_progress_bar

from biocompact.atomic import atomic_open, write_json
from biocompact.compression.formats import WEIGHT_FILES, load_format, weights_bytes
from biocompact.efficiency import time_forward
from biocompact.finetuning.saved_models import task_labels
from biocompact.finetuning.splits import check_known_labels
from biocompact.finetuning.tasks import get_family
from biocompact.finetuning.train import predict_logits
from biocompact.task_distillation.soft_labels import model_labels

log = logging.getLogger(__name__)
MB = 1e6  # sizes in megabytes (10^6 bytes)


def score_on_test(
    model: torch.nn.Module,
    folder: str | Path,
    task: Mapping,
    seed: int,
    out_predictions: str | Path,
) -> dict[str, Any]:
    """The harness's test metrics of ``model`` (tokenizer and labels from ``folder``, named
    as in the task's files, the
    task's hyperparameters for batching) in the format's own precision (no bf16 autocast,
    which int8 kernels refuse); writes its predictions."""
    family = get_family(task["family"], task["format"])
    labels = task_labels(model_labels(folder), task.get("label_names"))
    tokenizer = AutoTokenizer.from_pretrained(folder)
    test = family.read_split(task, "test")
    check_known_labels(test, labels)
    encoded = family.encode(test, tokenizer, labels, task)
    as_deployed = {**task["hyperparameters"], "bf16": False}
    logits = predict_logits(model, family, tokenizer, encoded.dataset, as_deployed, seed)
    predictions = family.decode(logits, encoded, labels)
    with atomic_open(out_predictions) as handle:
        family.write_predictions(handle, test, predictions)
    return {
        "primary_metric": family.primary_metric(task, labels),
        "metrics": family.score(test, predictions, task, labels),
        "test_examples": len(test),
    }


def cpu_latency(
    model: torch.nn.Module,
    batch_sizes: Sequence[int],
    sequence_lengths: Sequence[int],
    repeats: int,
) -> list[dict[str, Any]]:
    """``biocompact.efficiency.time_forward`` on CPU at every batch size and sequence length
    the model's positions allow (random token ids, full attention)."""
    usable = [s for s in sequence_lengths if s <= model.config.max_position_embeddings]
    return [
        time_forward(model, batch_size, length, repeats, torch.device("cpu"))
        for batch_size in batch_sizes
        for length in usable
    ]


def evaluate_format(
    folder: str | Path,
    format_name: str,
    task: Mapping,
    seed: int,
    out_evaluation: str | Path,
    out_predictions: str | Path,
    *,
    batch_sizes: Sequence[int],
    sequence_lengths: Sequence[int],
    repeats: int,
    threads: int = 1,
    model_name: str | None = None,
    task_name: str | None = None,
) -> dict[str, Any]:
    """Score, time and size format ``format_name`` of a fine-tuned model saved in ``folder``;
    write ``out_evaluation`` (JSON) and ``out_predictions``."""
    disable_progress_bar()
    model = load_format(folder, format_name, threads)
    scores = score_on_test(model, folder, task, seed, out_predictions)
    timings = cpu_latency(model, batch_sizes, sequence_lengths, repeats)
    size = weights_bytes(folder, format_name)
    result = {
        "model": model_name,
        "task": task_name,
        "seed": seed,
        "format": format_name,
        "model_path": str(folder),
        **scores,
        "weights_file": WEIGHT_FILES[format_name],
        "size_bytes": size,
        "size_mb": size / MB,
        "threads": threads,
        "repeats": repeats,
        "measurements": timings,
        "torch": torch.__version__,
    }
    write_json(out_evaluation, result)
    log.info(
        "%s: %s = %.4f, %.2f MB, %s",
        format_name,
        scores["primary_metric"],
        scores["metrics"][scores["primary_metric"]],
        size / MB,
        [
            f"b={t['batch_size']} s={t['sequence_length']}: {t['latency_ms']:.1f} ms"
            for t in timings
        ],
    )
    return result
