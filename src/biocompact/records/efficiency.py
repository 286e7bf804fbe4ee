"""``results/efficiency/{model}.json``: the record of one model's inference benchmark,
written by the efficiency job (``efficiency.benchmark.benchmark``) and read by the report's
size and speed tables (docs/outputs.md)."""

from __future__ import annotations

from dataclasses import dataclass, field

from biocompact.entries import FLAT
from biocompact.records.base import RecordFile
from biocompact.records.compressed_format import LatencyMeasurement


@dataclass(frozen=True, kw_only=True)
class ParameterCounts:
    """A model's parameters (``efficiency.benchmark.parameter_counts``): in all, of its
    embeddings, the rest, and of its transformer layers (the rest less the pooler)."""

    RECORD = "parameter counts"

    total: int
    embedding: int
    non_embedding: int
    layers: int


@dataclass(frozen=True, kw_only=True)
class Architecture:
    """The shape of a model, from its config."""

    RECORD = "architecture"

    layers: int
    hidden_size: int
    intermediate_size: int
    attention_heads: int
    vocab_size: int
    max_position_embeddings: int


@dataclass(frozen=True, kw_only=True)
class EfficiencyMeasurement:
    """One (device, batch size, sequence length) of a model: its latency over the timing
    rounds, its forward FLOPs per token, and the peak memory its pass adds to its resident
    weights (MB; None where the system cannot reset a process's peak)."""

    RECORD = "measurement"

    latency: LatencyMeasurement = field(metadata=FLAT)
    flops_per_token: int
    peak_activations_mb: float | None


@dataclass(frozen=True, kw_only=True)
class EfficiencyResult(RecordFile):
    """``{model}.json``: the model, its folder, parameters, weights (MB, 2**20 bytes),
    architecture and the formula of its FLOPs; its measurements, timed in interleaved rounds
    with the models it is ``compared_with``; the devices (type -> name), the threads, the
    rounds and how they were timed, and the torch version that ran it."""

    FILE = "efficiency record (efficiency/{model}.json)"
    RECORD = "efficiency record"

    model: str
    model_path: str
    parameters: ParameterCounts
    weights_mb: float
    architecture: Architecture
    flops_formula: str
    measurements: list[EfficiencyMeasurement]  # in device, batch size, length order
    compared_with: list[str]
    devices: dict[str, str]
    threads: int
    repeats: int
    timing: str  # how the models were timed: interleaved rounds
    torch: str
