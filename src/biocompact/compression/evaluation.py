"""Re-score one format of a fine-tuned model on its task's test set with the harness (the
fine-tuning stage's batching, decoding and metrics), and time all formats of that model together
on CPU with the efficiency stage's interleaved rounds; written per format as
``evaluation.json`` and the harness's ``predictions.tsv``."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import torch
from transformers import AutoTokenizer, PreTrainedModel
from transformers.utils.logging import disable_progress_bar

from biocompact.compression.formats import WEIGHT_FILES, load_format, weights_bytes
from biocompact.compression.onnx_runtime import OnnxModel
from biocompact.efficiency.benchmark import interleaved_timings, measurement
from biocompact.files.atomic import atomic_open, write_json
from biocompact.finetuning.task_labels import check_known_labels, task_labels
from biocompact.finetuning.tasks import get_family
from biocompact.finetuning.trainer import predict_logits
from biocompact.records.base import record_data
from biocompact.records.compressed_format import CompressedFormatEvaluation, LatencyMeasurement
from biocompact.task_distillation.soft_labels import model_labels
from biocompact.taskfiles.settings import FinetuningTask

log = logging.getLogger(__name__)
MB = 1e6  # sizes in megabytes (10^6 bytes)


@dataclass(frozen=True)
class FormatScores:
    """A format's scores on the task's test split: the primary metric's name, every metric
    and the examples scored."""

    primary_metric: str
    metrics: dict[str, float]
    test_examples: int


def score_on_test(
    model: PreTrainedModel | OnnxModel,
    folder: str | Path,
    task: FinetuningTask,
    seed: int,
    out_predictions: str | Path,
) -> FormatScores:
    """The harness's test metrics of ``model`` (tokenizer and labels from ``folder``, named
    as in the task's files, the
    task's hyperparameters for batching) in the format's own precision (no bf16 autocast,
    which int8 kernels refuse); writes its predictions."""
    family = get_family(task.family, task.format)
    labels = task_labels(model_labels(folder), task.label_names, task.family)
    tokenizer = AutoTokenizer.from_pretrained(folder)
    test = family.read_split(task, "test")
    check_known_labels(test, labels)
    encoded = family.encode(test, tokenizer, labels, task)
    as_deployed = replace(task.training, bf16=False)
    logits = predict_logits(model, family, tokenizer, encoded.dataset, as_deployed, seed)
    predictions = family.decode(logits, encoded, labels)
    with atomic_open(out_predictions) as handle:
        family.write_predictions(handle, test, predictions)
    return FormatScores(
        primary_metric=family.primary_metric(task, labels),
        metrics=family.score(test, predictions, task, labels),
        test_examples=len(test),
    )


def cpu_latency(
    models: Mapping[str, PreTrainedModel | OnnxModel],
    batch_sizes: Sequence[int],
    sequence_lengths: Sequence[int],
    repeats: int,
) -> dict[str, list[LatencyMeasurement]]:
    """The ``measurement`` of every model on CPU at every batch size and sequence length all
    models' positions allow (random token ids, full attention), ``repeats`` rounds interleaved
    across the models (``biocompact.efficiency.benchmark.interleaved_timings``)."""
    longest = min(model.config.max_position_embeddings for model in models.values())
    usable = [s for s in sequence_lengths if s <= longest]
    cpu = torch.device("cpu")
    latencies: dict[str, list[LatencyMeasurement]] = {name: [] for name in models}
    for batch_size in batch_sizes:
        for length in usable:
            timings = interleaved_timings(models, batch_size, length, repeats, cpu)
            for name, seconds in timings.items():
                latencies[name].append(measurement(seconds, batch_size, length, cpu))
    return latencies


def evaluate_formats(
    folders: Mapping[str, str | Path],
    task: FinetuningTask,
    seed: int,
    out_evaluations: Mapping[str, str | Path],
    out_predictions: Mapping[str, str | Path],
    *,
    batch_sizes: Sequence[int],
    sequence_lengths: Sequence[int],
    repeats: int,
    threads: int = 1,
    model_name: str | None = None,
    task_name: str | None = None,
) -> dict[str, CompressedFormatEvaluation]:
    """Score and size every format of one fine-tuned model (``folders``: format name -> the
    folder it is saved in), then time them together (``cpu_latency``); write each format's
    record to ``out_evaluations[format]`` and its predictions to
    ``out_predictions[format]``."""
    disable_progress_bar()
    models = {name: load_format(folder, name, threads) for name, folder in folders.items()}
    scores = {
        name: score_on_test(model, folders[name], task, seed, out_predictions[name])
        for name, model in models.items()
    }
    latencies = cpu_latency(models, batch_sizes, sequence_lengths, repeats)
    results = {}
    for name, folder in folders.items():
        size = weights_bytes(folder, name)
        results[name] = CompressedFormatEvaluation(
            model=model_name,
            task=task_name,
            seed=seed,
            format=name,
            model_path=str(folder),
            primary_metric=scores[name].primary_metric,
            metrics=scores[name].metrics,
            test_examples=scores[name].test_examples,
            weights_file=WEIGHT_FILES[name],
            size_bytes=size,
            size_mb=size / MB,
            threads=threads,
            repeats=repeats,
            timing="interleaved rounds",
            compared_with=[other for other in folders if other != name],
            measurements=latencies[name],
            torch=torch.__version__,
        )
        write_json(out_evaluations[name], record_data(results[name]))
        log.info(
            "%s: %s = %.4f, %.2f MB, %s",
            name,
            results[name].primary_metric,
            results[name].primary_score,
            results[name].size_mb,
            [
                f"b={t.batch_size} s={t.sequence_length}: {t.latency_ms:.1f} ms "
                f"({t.latency_ms_min:.1f}-{t.latency_ms_max:.1f})"
                for t in latencies[name]
            ],
        )
    return results
