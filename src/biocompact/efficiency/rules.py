"""Rule entry points of the efficiency stage: one function per rule, named after the rule
(rule ``efficiency``, declared in workflow/rules/report.smk beside the report it feeds)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from biocompact.efficiency.benchmark import benchmark


def efficiency(
    settings: Mapping[str, Any], *, outputs: Mapping[str, Any], threads: int
) -> dict[str, dict[str, Any]]:
    """``benchmark`` of the models of ``settings["model_paths"]``, each model's results to
    its file of ``outputs["results"]`` (in the order of ``settings["models"]``)."""
    return benchmark(
        model_paths=settings["model_paths"],
        outputs=dict(zip(settings["models"], outputs["results"])),
        batch_sizes=settings["batch_sizes"],
        sequence_lengths=settings["sequence_lengths"],
        repeats=settings["repeats"],
        threads=threads,
    )
