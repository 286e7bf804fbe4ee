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

import gc
import json
import logging
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from itertools import chain
from pathlib import Path
from typing import Any, Protocol

import torch
from transformers import AutoModel, PretrainedConfig, PreTrainedModel

from biocompact.files.atomic import write_json
from biocompact.records.base import record_data
from biocompact.records.compressed_format import LatencyMeasurement
from biocompact.records.efficiency import (
    Architecture,
    EfficiencyMeasurement,
    EfficiencyResult,
    ParameterCounts,
)

FLOPS_FORMULA = "2 * layer_parameters + 4 * layers * sequence_length * hidden_size"
log = logging.getLogger(__name__)


class TimedModel(Protocol):
    """What the benchmark times: a model called on token ids, with its config (a
    PreTrainedModel, or the compression stage's ONNX Runtime model)."""

    config: PretrainedConfig

    def __call__(self, **inputs: torch.Tensor) -> Any: ...


def _numel(module: torch.nn.Module | None) -> int:
    return 0 if module is None else sum(p.numel() for p in module.parameters())


def parameter_counts(model: PreTrainedModel) -> ParameterCounts:
    """Total parameters, embedding parameters, the rest, and those of the transformer layers."""
    embeddings = getattr(model, "embeddings", None)
    if embeddings is None:
        embeddings = model.get_input_embeddings()
    total = _numel(model)
    embedding = _numel(embeddings)
    return ParameterCounts(
        total=total,
        embedding=embedding,
        non_embedding=total - embedding,
        layers=total - embedding - _numel(getattr(model, "pooler", None)),
    )


def flops_per_token(
    layer_parameters: int, layers: int, hidden_size: int, sequence_length: int
) -> int:
    """Forward FLOPs per token: ``2 N + 4 L S H`` (see the module docstring)."""
    return 2 * layer_parameters + 4 * layers * sequence_length * hidden_size


# Linux: the process's resident set now (VmRSS) and its peak (VmHWM), whose peak writing "5"
# to clear_refs resets to the current resident set (proc(5), /proc/pid/clear_refs)
PROC_STATUS = Path("/proc/self/status")
PROC_CLEAR_REFS = Path("/proc/self/clear_refs")
# glibc's malloc gives a block above its mmap threshold a mapping of its own, unmapped when
# freed, and raises the threshold to the largest such block freed (up to 32 MB): once a
# loader's buffer is freed, activations come from the heap, whose freed pages it returns or
# keeps as it goes (all-MiniLM-L6-v2 at batch 8 x 128: 27.7-34.8 MB over six identical runs).
# A fixed threshold (mallopt(3)) maps every block above 128 kB: 20.3 MB, within 0.2 MB.
FIXED_MMAP_THRESHOLD = {"MALLOC_MMAP_THRESHOLD_": str(128 * 1024)}


def _status_mb(field: str) -> float:
    """A memory field of /proc/self/status (``VmRSS``, ``VmHWM``) in MB (it reports kB)."""
    for line in PROC_STATUS.read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    raise KeyError(f"{PROC_STATUS} has no {field}")


def can_measure_cpu_peak() -> bool:
    """Whether this system lets a process reset its peak resident set (Linux)."""
    try:
        PROC_CLEAR_REFS.write_text("5")
    except OSError:
        return False
    return PROC_STATUS.exists()


def _synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def random_inputs(
    vocab_size: int, batch_size: int, sequence_length: int, device: torch.device
) -> dict[str, torch.Tensor]:
    """Token ids drawn with a fixed seed, and an all-ones attention mask."""
    generator = torch.Generator().manual_seed(0)
    input_ids = torch.randint(0, vocab_size, (batch_size, sequence_length), generator=generator)
    return {
        "input_ids": input_ids.to(device),
        "attention_mask": torch.ones_like(input_ids).to(device),
    }


def time_once(model: TimedModel, inputs: dict[str, torch.Tensor], device: torch.device) -> float:
    """Seconds of one forward pass."""
    _synchronize(device)
    start = time.perf_counter()
    model(**inputs)
    _synchronize(device)
    return time.perf_counter() - start


def interleaved_timings(
    models: Mapping[str, TimedModel],
    batch_size: int,
    sequence_length: int,
    repeats: int,
    device: torch.device,
) -> dict[str, list[float]]:
    """Seconds per forward pass of every model, ``repeats`` rounds after one warm-up each.

    Each round times every model once, the starting model moving by one per round
    (A B C, B C A, C A B, ...): a slow spell of a shared machine hits every model of a round
    alike instead of one model's repeats, and no model is always first.
    """
    inputs = {
        name: random_inputs(model.config.vocab_size, batch_size, sequence_length, device)
        for name, model in models.items()
    }
    names = list(models)
    timings: dict[str, list[float]] = {name: [] for name in names}
    with torch.inference_mode():
        for name in names:
            models[name](**inputs[name])
        for round_index in range(repeats):
            shift = round_index % len(names)
            for name in names[shift:] + names[:shift]:
                timings[name].append(time_once(models[name], inputs[name], device))
    return timings


def measurement(
    seconds: Sequence[float], batch_size: int, sequence_length: int, device: torch.device
) -> LatencyMeasurement:
    """Median latency, its spread (min, max, quartiles) and the median throughput."""
    runs = [t * 1000 for t in seconds]
    quartiles = statistics.quantiles(runs, n=4) if len(runs) > 1 else [runs[0]] * 3
    median = statistics.median(runs)
    return LatencyMeasurement(
        device=device.type,
        batch_size=batch_size,
        sequence_length=sequence_length,
        latency_ms=median,
        latency_ms_runs=runs,
        latency_ms_min=min(runs),
        latency_ms_max=max(runs),
        latency_ms_q1=quartiles[0],
        latency_ms_q3=quartiles[2],
        sequences_per_second=batch_size * 1000 / median,
        tokens_per_second=batch_size * sequence_length * 1000 / median,
    )


def weights_mb(model: torch.nn.Module) -> float:
    """MB (2**20 bytes) of the model's parameters and buffers (a tied weight once): what its
    weights hold in memory however its folder was saved or loaded."""
    tensors = chain(model.parameters(), model.buffers())
    return sum(tensor.numel() * tensor.element_size() for tensor in tensors) / 2**20


def resident(model: PreTrainedModel) -> PreTrainedModel:
    """The model with every parameter and buffer copied into memory of its own: weights loaded
    memory-mapped (safetensors), whose pages only a pass that reads them makes resident, are
    then held as weights read into memory (a PyTorch ``.bin``) are."""
    with torch.no_grad():
        for tensor in chain(model.parameters(), model.buffers()):
            tensor.data = tensor.data.clone()
    return model


def peak_activations_mb(
    model_path: str | Path,
    batch_sizes: Sequence[int],
    sequence_lengths: Sequence[int],
    device: torch.device,
    threads: int,
) -> dict[tuple[int, int], float | None]:
    """Peak memory that one forward pass of this model alone adds to its resident weights, per
    (batch size, sequence length): the activations (the weights are ``weights_mb``).

    GPU: the peak allocated memory of the pass less that allocated before it (the weights).
    CPU: in a fresh process that loads only this model (the timing process holds every model
    at once), the peak resident set of the pass less the resident set once the weights are
    resident (``cpu_peak_rss``); None where the system cannot reset a process's peak
    (``can_measure_cpu_peak``)."""
    if device.type == "cpu":
        return _cpu_peak_rss_in_child(model_path, batch_sizes, sequence_lengths, threads)
    model = AutoModel.from_pretrained(str(model_path)).eval().to(device)
    peaks: dict[tuple[int, int], float | None] = {}
    with torch.inference_mode():
        for batch_size in batch_sizes:
            for length in sequence_lengths:
                inputs = random_inputs(model.config.vocab_size, batch_size, length, device)
                before = torch.cuda.memory_allocated(device)
                torch.cuda.reset_peak_memory_stats(device)
                model(**inputs)
                peak = torch.cuda.max_memory_allocated(device) - before
                peaks[(batch_size, length)] = peak / 2**20
    del model
    torch.cuda.empty_cache()
    return peaks


def _cpu_peak_rss_in_child(
    model_path: str | Path,
    batch_sizes: Sequence[int],
    sequence_lengths: Sequence[int],
    threads: int,
) -> dict[tuple[int, int], float | None]:
    """``cpu_peak_rss`` in a fresh Python process (``python -m biocompact.efficiency.benchmark``)
    with glibc's mmap threshold fixed (``FIXED_MMAP_THRESHOLD``)."""
    arguments = json.dumps([str(model_path), list(batch_sizes), list(sequence_lengths), threads])
    result = subprocess.run(
        [sys.executable, "-m", "biocompact.efficiency.benchmark", arguments],
        capture_output=True,
        text=True,
        check=False,
        env=os.environ | FIXED_MMAP_THRESHOLD,
    )
    if result.returncode != 0:
        raise RuntimeError(f"{model_path}: the memory measurement failed:\n{result.stderr[-3000:]}")
    peaks = json.loads(result.stdout.strip().splitlines()[-1])  # its last line
    return {(batch, length): peak for batch, length, peak in peaks}


def cpu_peak_rss(
    model_path: str, batch_sizes: Sequence[int], sequence_lengths: Sequence[int], threads: int
) -> list[tuple[int, int, float | None]]:
    """(batch size, sequence length, MB) of one forward pass of each, smallest first: the
    peak resident set of the pass (its peak reset before it) less the resident set before it,
    once the model's code has run and its weights are ``resident``; None for every pass where
    the peak cannot be reset. Call it in a process that has loaded no other model."""
    shapes = sorted(
        ((b, s) for b in batch_sizes for s in sequence_lengths),
        key=lambda shape: shape[0] * shape[1],
    )
    if not can_measure_cpu_peak():
        log.warning("the CPU peak memory is not measured: %s cannot be written", PROC_CLEAR_REFS)
        return [(batch_size, length, None) for batch_size, length in shapes]
    torch.set_num_threads(threads)
    # A first load and pass import the model's modules and set up the runtime (about 20 MB
    # for any model, which a 1,672-parameter BERT would otherwise report as its own); their
    # model is freed before the resident set is read.
    _peaks_above(AutoModel.from_pretrained(model_path).eval(), shapes[:1], 0.0)
    model = resident(AutoModel.from_pretrained(model_path).eval())
    gc.collect()
    return _peaks_above(model, shapes, _status_mb("VmRSS"))


def _peaks_above(
    model: PreTrainedModel, shapes: Sequence[tuple[int, int]], baseline_mb: float
) -> list[tuple[int, int, float | None]]:
    """(batch size, sequence length, MB) of each shape's pass: its peak resident set (the
    peak reset before it) less ``baseline_mb``."""
    peaks: list[tuple[int, int, float | None]] = []
    with torch.inference_mode():
        for batch_size, length in shapes:
            inputs = random_inputs(model.config.vocab_size, batch_size, length, torch.device("cpu"))
            PROC_CLEAR_REFS.write_text("5")
            model(**inputs)
            peaks.append((batch_size, length, _status_mb("VmHWM") - baseline_mb))
    return peaks


def devices() -> list[torch.device]:
    """The CPU, and the first GPU when there is one."""
    return [torch.device("cpu")] + ([torch.device("cuda", 0)] if torch.cuda.is_available() else [])


def _device_name(device: torch.device) -> str:
    return (
        torch.cuda.get_device_name(device)
        if device.type == "cuda"
        else platform.processor() or "cpu"
    )


def architecture(config: PretrainedConfig) -> Architecture:
    """The shape of a model of ``config``."""
    return Architecture(
        layers=config.num_hidden_layers,
        hidden_size=config.hidden_size,
        intermediate_size=config.intermediate_size,
        attention_heads=config.num_attention_heads,
        vocab_size=config.vocab_size,
        max_position_embeddings=config.max_position_embeddings,
    )


def benchmark(
    model_paths: dict[str, str | Path],
    outputs: dict[str, str | Path],
    batch_sizes: Sequence[int],
    sequence_lengths: Sequence[int],
    repeats: int,
    threads: int = 1,
) -> dict[str, EfficiencyResult]:
    """Measure the models together, repeats interleaved across them (``interleaved_timings``),
    on every (device, batch size, sequence length) that every model accepts; write one JSON
    per model to ``outputs[name]``."""
    torch.set_num_threads(threads)
    models = {
        name: AutoModel.from_pretrained(str(path)).eval() for name, path in model_paths.items()
    }
    longest = min(model.config.max_position_embeddings for model in models.values())
    usable = [s for s in sequence_lengths if s <= longest]
    if len(usable) < len(sequence_lengths):
        log.warning("sequence lengths above %d (the shortest model's limit) skipped", longest)
    parameters = {name: parameter_counts(model) for name, model in models.items()}
    weights = {name: weights_mb(model) for name, model in models.items()}
    measurements: dict[str, list[EfficiencyMeasurement]] = {name: [] for name in models}
    for device in devices():
        for model in models.values():
            model.to(device)
        timed: dict[str, list[tuple[LatencyMeasurement, int]]] = {name: [] for name in models}
        for batch_size in batch_sizes:
            for length in usable:
                timings = interleaved_timings(models, batch_size, length, repeats, device)
                for name, seconds in timings.items():
                    latency = measurement(seconds, batch_size, length, device)
                    flops = flops_per_token(
                        parameters[name].layers,
                        models[name].config.num_hidden_layers,
                        models[name].config.hidden_size,
                        length,
                    )
                    log.info(
                        "%s %s b=%d s=%d: %.1f ms (%.1f-%.1f)",
                        name,
                        device,
                        batch_size,
                        length,
                        latency.latency_ms,
                        latency.latency_ms_min,
                        latency.latency_ms_max,
                    )
                    timed[name].append((latency, flops))
        for model in models.values():
            model.to("cpu")
        for name, path in model_paths.items():
            peaks = peak_activations_mb(path, batch_sizes, usable, device, threads)
            measurements[name] += [
                EfficiencyMeasurement(
                    latency=latency,
                    flops_per_token=flops,
                    peak_activations_mb=peaks[(latency.batch_size, latency.sequence_length)],
                )
                for latency, flops in timed[name]
            ]
    results = {}
    for name, model in models.items():
        results[name] = EfficiencyResult(
            model=name,
            model_path=str(model_paths[name]),
            parameters=parameters[name],
            weights_mb=weights[name],
            architecture=architecture(model.config),
            flops_formula=FLOPS_FORMULA,
            measurements=measurements[name],
            compared_with=[other for other in models if other != name],
            devices={device.type: _device_name(device) for device in devices()},
            threads=threads,
            repeats=repeats,
            timing="interleaved rounds",
            torch=torch.__version__,
        )
        write_json(outputs[name], record_data(results[name]))
    return results


if __name__ == "__main__":  # the child process of _cpu_peak_rss_in_child
    print(json.dumps(cpu_peak_rss(*json.loads(sys.argv[1]))))
