"""Rule entry points of the report stage: one function per rule of workflow/rules/report.smk,
named after the rule (its rule ``efficiency`` runs the efficiency stage's:
``biocompact.efficiency.rules``). Light: no training stack imported."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TypedDict

import pandas as pd

from biocompact.report import aggregation
from biocompact.report.comparisons import run_comparisons
from biocompact.report.render import build_report
from biocompact.report.retention import write_retention
from biocompact.report.settings import ComparisonStudy, ReportFacts, ReportPage, ScoreAggregation


def aggregate(aggregated: ScoreAggregation, *, outputs: Mapping[str, str | Path]) -> pd.DataFrame:
    """``aggregation.aggregate`` of the runs of ``aggregated`` into the rule's outputs (scores,
    summary, averages, markdown), then each student's retention."""
    aggregation.aggregate(
        **{key: outputs[key] for key in ("scores", "summary", "averages", "markdown")},
        models=aggregated.models,
        tasks=aggregated.tasks,
        seeds=aggregated.seeds,
        metrics_pattern=aggregated.metrics_pattern,
        baseline_pattern=aggregated.baseline_pattern,
        floors_pattern=aggregated.floors_pattern,
        average=aggregated.average,
        blurb_types=aggregated.blurb_types,
    )
    return write_retention(
        outputs["scores"], outputs["summary"], aggregated.teachers, outputs["retention"]
    )


def comparisons(
    study: ComparisonStudy, *, outputs: Mapping[str, str | Path], threads: int = 1
) -> pd.DataFrame:
    """``run_comparisons`` of ``study`` into the rule's outputs (comparisons, intervals) on
    ``threads`` processes."""
    return run_comparisons(study, outputs=outputs, threads=threads)


class ReportInputs(TypedDict):
    """The named inputs of rule report."""

    template: str
    published: str
    summary: str
    scores: str
    averages: str
    efficiency: Sequence[str]
    train_logs: Sequence[str]
    evals: Sequence[str]
    corpus: str | Sequence[str]  # [] without the corpus stage
    vocab: Sequence[str]
    datasets: Sequence[str]
    task_distillation: str | Sequence[str]  # [] without task-specific distillation
    retention: str
    comparisons: str
    intervals: str
    compression: str | Sequence[str]  # [] without compression
    contamination: str | Sequence[str]  # [] when the corpus is not decontaminated
    transfer_records: Sequence[str]


def report(
    page: ReportPage,
    facts: ReportFacts,
    *,
    inputs: ReportInputs,
    outputs: Mapping[str, str | Path],
) -> None:
    """``build_report`` of the rule's named inputs (template, published and the result
    files), ``page`` and the config's ``facts`` into ``outputs["html"]``."""
    build_report(
        outputs["html"],
        **inputs,
        benchmarks=page.benchmarks,
        config=page.config,
        facts=facts,
        title=page.title,
        source_dir=page.source_dir,
    )
