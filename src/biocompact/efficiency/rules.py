"""Rule entry points of the efficiency stage: one function per rule, named after the rule
(rule ``efficiency``, declared in workflow/rules/report.smk beside the report it feeds)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from biocompact.efficiency.benchmark import benchmark
from biocompact.efficiency.settings import EfficiencyBenchmark
from biocompact.records.efficiency import EfficiencyResult


def efficiency(
    measured: EfficiencyBenchmark, *, outputs: Mapping[str, Sequence[str]], threads: int
) -> dict[str, EfficiencyResult]:
    """``benchmark`` of the ``measured`` models, each model's results to its file of
    ``outputs["results"]`` (in the order of ``measured.models``)."""
    return benchmark(
        model_paths=dict(measured.model_paths),
        outputs=dict(zip(measured.models, outputs["results"])),
        batch_sizes=measured.batch_sizes,
        sequence_lengths=measured.sequence_lengths,
        repeats=measured.repeats,
        threads=threads,
    )
