"""Rule entry points of the report stage: one function per rule of workflow/rules/report.smk,
named after the rule (its rule ``efficiency`` runs the efficiency stage's:
``biocompact.efficiency.rules``). Light: no training stack imported."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from biocompact.report import aggregation
from biocompact.report.comparisons import run_comparisons
from biocompact.report.render import build_report
from biocompact.report.retention import write_retention


def aggregate(settings: Mapping[str, Any], *, outputs: Mapping[str, str | Path]) -> pd.DataFrame:
    """``aggregation.aggregate`` with the rule's params (``settings``: models, tasks, seeds,
    path patterns, average, blurb_types; ``teachers``: student -> teacher) into its outputs
    (scores, summary, averages, markdown), then each student's retention."""
    tables: dict[str, Any] = {
        key: outputs[key] for key in ("scores", "summary", "averages", "markdown")
    }
    aggregation.aggregate(
        **tables, **{key: value for key, value in settings.items() if key != "teachers"}
    )
    return write_retention(
        outputs["scores"], outputs["summary"], settings["teachers"], outputs["retention"]
    )


def comparisons(
    settings: Mapping[str, Any], *, outputs: Mapping[str, str | Path], threads: int = 1
) -> pd.DataFrame:
    """``run_comparisons`` of the rule's params (``settings``) into its outputs
    (comparisons, intervals) on ``threads`` processes."""
    return run_comparisons(settings, outputs=outputs, threads=threads)


def report(
    settings: Mapping[str, Any],
    *,
    inputs: Mapping[str, Any],
    outputs: Mapping[str, str | Path],
) -> None:
    """``build_report`` of the rule's named inputs (template, published and the result
    files) and params (``settings``: benchmarks, config, title, source_dir) into
    ``outputs["html"]``."""
    build_report(outputs["html"], **inputs, **settings)
