"""Speed-ups from interleaved timing rounds (no torch: the report and the summaries use it)."""

from __future__ import annotations

import statistics
from collections.abc import Sequence


def round_ratios(reference_runs: Sequence[float], runs: Sequence[float]) -> list[float]:
    """Speed-up per timing round: the reference's latency over the model's in the same round
    (the timing jobs interleave the models, so round i of both shares the machine's state)."""
    return [ref / own for ref, own in zip(reference_runs, runs, strict=True) if own > 0]


def speedup_range(reference_runs: Sequence[float], runs: Sequence[float]) -> tuple[float, ...]:
    """Median, min and max over rounds of ``round_ratios``."""
    ratios = round_ratios(reference_runs, runs)
    return statistics.median(ratios), min(ratios), max(ratios)
