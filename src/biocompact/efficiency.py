"""Efficiency of an encoder: parameters, analytic FLOPs, throughput, latency, memory.

FLOPs per token of a forward pass of a BERT-style encoder with ``L`` layers, hidden size
``H``, sequence length ``S`` and ``N`` parameters in its transformer layers (embeddings
and pooler excluded)::

    FLOPs/token = 2 N + 4 L S H

``2 N``: every layer weight is one multiply-add per token (Q, K, V, output, both
feed-forward matrices; biases and LayerNorms add their few parameters);
``4 L S H``: attention scores ``Q K^T`` and the weighted sum of ``V`` take ``S H``
multiply-adds each per token and layer. Embedding look-ups, softmax and activation
functions are not counted.
"""

from __future__ import annotations

import logging
import platform
import resource
import statistics
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch
from transformers import AutoModel, PreTrainedModel

from biocompact.atomic import write_json

FLOPS_FORMULA = "2 * layer_parameters + 4 * layers * sequence_length * hidden_size"
log = logging.getLogger(__name__)


def _numel(module: torch.nn.Module | None) -> int:
    return 0 if module is None else sum(p.numel() for p in module.parameters())


def parameter_counts(model: PreTrainedModel) -> dict[str, int]:
    """Total parameters, embedding parameters, the rest, and those of the transformer layers."""
    embeddings = getattr(model, "embeddings", None)
    if embeddings is None:
        embeddings = model.get_input_embeddings()
    total = _numel(model)
    embedding = _numel(embeddings)
    return {
        "total": total,
        "embedding": embedding,
        "non_embedding": total - embedding,
        "layers": total - embedding - _numel(getattr(model, "pooler", None)),
    }


def flops_per_token(
    layer_parameters: int, layers: int, hidden_size: int, sequence_length: int
) -> int:
    """Forward FLOPs per token: ``2 N + 4 L S H`` (see the module docstring)."""
    return 2 * layer_parameters + 4 * layers * sequence_length * hidden_size


def _peak_rss_mb() -> float:
    """Peak resident set size of this process so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def time_forward(
    model: PreTrainedModel,
    batch_size: int,
    sequence_length: int,
    repeats: int,
    device: torch.device,
) -> dict[str, Any]:
    """Median latency of ``repeats`` forward passes after one warm-up, and the throughput."""
    generator = torch.Generator().manual_seed(0)
    input_ids = torch.randint(
        0, model.config.vocab_size, (batch_size, sequence_length), generator=generator
    )
    inputs = {
        "input_ids": input_ids.to(device),
        "attention_mask": torch.ones_like(input_ids).to(device),
    }
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
    timings = []
    with torch.inference_mode():
        model(**inputs)
        for _ in range(repeats):
            _synchronize(device)
            start = time.perf_counter()
            model(**inputs)
            _synchronize(device)
            timings.append(time.perf_counter() - start)
    seconds = statistics.median(timings)
    return {
        "device": device.type,
        "batch_size": batch_size,
        "sequence_length": sequence_length,
        "latency_ms": seconds * 1000,
        "latency_ms_runs": [t * 1000 for t in timings],
        "sequences_per_second": batch_size / seconds,
        "tokens_per_second": batch_size * sequence_length / seconds,
        "peak_memory_mb": (
            torch.cuda.max_memory_allocated(device) / 2**20
            if device.type == "cuda"
            else _peak_rss_mb()
        ),
    }


def devices() -> list[torch.device]:
    """The CPU, and the first GPU when there is one."""
    return [torch.device("cpu")] + ([torch.device("cuda", 0)] if torch.cuda.is_available() else [])


def _device_name(device: torch.device) -> str:
    return (
        torch.cuda.get_device_name(device)
        if device.type == "cuda"
        else platform.processor() or "cpu"
    )


def benchmark(
    model_path: str | Path,
    output: str | Path,
    model_name: str,
    batch_sizes: Sequence[int],
    sequence_lengths: Sequence[int],
    repeats: int,
    threads: int = 1,
) -> dict[str, Any]:
    """Measure one model on every (device, batch size, sequence length); write the JSON."""
    torch.set_num_threads(threads)
    rss_before = _peak_rss_mb()
    model = AutoModel.from_pretrained(str(model_path)).eval()
    config = model.config
    counts = parameter_counts(model)
    usable = [s for s in sequence_lengths if s <= config.max_position_embeddings]
    if len(usable) < len(sequence_lengths):
        log.warning(
            "%s: sequence lengths above %d skipped", model_name, config.max_position_embeddings
        )
    measurements = []
    for device in devices():
        model.to(device)
        for batch_size in batch_sizes:
            for length in usable:
                row = time_forward(model, batch_size, length, repeats, device)
                row["flops_per_token"] = flops_per_token(
                    counts["layers"], config.num_hidden_layers, config.hidden_size, length
                )
                log.info(
                    "%s %s b=%d s=%d: %.1f ms",
                    model_name,
                    device,
                    batch_size,
                    length,
                    row["latency_ms"],
                )
                measurements.append(row)
    result = {
        "model": model_name,
        "model_path": str(model_path),
        "parameters": counts,
        "architecture": {
            "layers": config.num_hidden_layers,
            "hidden_size": config.hidden_size,
            "intermediate_size": config.intermediate_size,
            "attention_heads": config.num_attention_heads,
            "vocab_size": config.vocab_size,
            "max_position_embeddings": config.max_position_embeddings,
        },
        "flops_formula": FLOPS_FORMULA,
        "measurements": measurements,
        "peak_rss_mb": _peak_rss_mb(),
        "peak_rss_delta_mb": _peak_rss_mb() - rss_before,
        "devices": {device.type: _device_name(device) for device in devices()},
        "threads": threads,
        "repeats": repeats,
        "torch": torch.__version__,
    }
    write_json(output, result)
    return result
