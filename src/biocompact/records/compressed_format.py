"""Compression's ``evaluation.json``: the record of one format (fp32, int8, onnx) of a
fine-tuned model re-scored on its task's test set, sized and timed on CPU, written by its job
(``compression.evaluation``) and read by the compression summary (docs/outputs.md)."""

from __future__ import annotations

from dataclasses import dataclass

from biocompact.records.base import RecordFile


@dataclass(frozen=True, kw_only=True)
class LatencyMeasurement:
    """The latency (ms) of one batch size and sequence length over the timing rounds
    (``efficiency.benchmark.measurement``): every round's, their median, spread and the
    median throughput."""

    RECORD = "measurement"

    device: str
    batch_size: int
    sequence_length: int
    latency_ms: float  # the median
    latency_ms_runs: list[float]
    latency_ms_min: float
    latency_ms_max: float
    latency_ms_q1: float
    latency_ms_q3: float
    sequences_per_second: float
    tokens_per_second: float


@dataclass(frozen=True, kw_only=True)
class CompressedFormatEvaluation(RecordFile):
    """``evaluation.json``: a format's test scores by the fine-tuning harness, the size of
    its weights file and its CPU ``measurements``, timed in interleaved rounds with the
    formats it is ``compared_with``. Every key is always written: ``model`` and ``task``
    null when its job named none, ``measurements`` empty when no sequence length fitted
    the models' positions."""

    FILE = "compressed format evaluation (evaluation.json)"
    RECORD = "compressed format evaluation"

    model: str | None
    task: str | None
    seed: int
    format: str
    model_path: str
    primary_metric: str
    metrics: dict[str, float]
    test_examples: int
    weights_file: str
    size_bytes: int
    size_mb: float
    threads: int
    repeats: int
    timing: str  # how the formats were timed: interleaved rounds
    compared_with: list[str]
    measurements: list[LatencyMeasurement]  # one per timed batch size and sequence length
    torch: str  # the version that ran it

    @property
    def primary_score(self) -> float:
        """The score of ``primary_metric``."""
        return self.metrics[self.primary_metric]
