"""Assemble the report from result files and render the jinja2 template to one HTML file."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jinja2
import pandas as pd

from biocompact.aggregation import AVERAGE_FORMULA
from biocompact.atomic import atomic_open, read_json
from biocompact.report import load, plots, tables


def render(template: str | Path, context: dict[str, Any]) -> str:
    """Render ``template`` (autoescaped; undefined names are errors)."""
    template = Path(template)
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(template.parent), autoescape=True, undefined=jinja2.StrictUndefined
    )
    return environment.get_template(template.name).render(**context)


def _results_context(summary: pd.DataFrame, scores: pd.DataFrame, averages: pd.DataFrame,
                     efficiency: pd.DataFrame) -> dict[str, Any]:
    context = {
        "headline": tables.headline(averages, efficiency),
        "results": tables.results_table(summary, averages),
        "average_formula": AVERAGE_FORMULA,
        "metrics": tables.metrics_table(summary),
        "definitions": tables.definitions_table(summary),
        "seed_spread_svg": plots.seed_spread(scores, summary),
        "efficiency": tables.efficiency_table(efficiency) if not efficiency.empty else None,
        "speed_svg": None,
        "size_svg": None,
    }
    tradeoff = tables.tradeoff_frame(averages, efficiency) if not efficiency.empty else pd.DataFrame()
    if not tradeoff.empty:
        context["speed_svg"] = plots.tradeoff(tradeoff, "tokens_per_second", "tokens per second", maximise_x=True)
        context["size_svg"] = plots.tradeoff(tradeoff, "parameters", "parameters", maximise_x=False)
    return context


def _models_context(train_logs: Sequence[str | Path], evals: Sequence[str | Path]) -> dict[str, Any]:
    logs = load.read_train_logs(train_logs)
    results = load.read_jsons(evals)
    return {
        "curves_svg": plots.training_curves(logs) if not logs.empty else None,
        "model_evals": tables.model_eval_table(results, [Path(path).parent.parent.name for path in evals]),
        "fill_mask": tables.fill_mask_table(results),
    }


def build_report(
    output: str | Path,
    template: str | Path,
    summary: str | Path,
    scores: str | Path,
    averages: str | Path,
    efficiency: Sequence[str | Path] = (),
    train_logs: Sequence[str | Path] = (),
    evals: Sequence[str | Path] = (),
    corpus: str | Path | None = None,
    vocab: Sequence[str | Path] = (),
    benchmarks: str | Path = "results/benchmarks",
    config: dict[str, Any] | None = None,
    title: str = "biocompact report",
    source_dir: str | Path = ".",
) -> None:
    """Write the self-contained HTML report.

    ``train_logs`` and ``evals`` live at ``.../{stage}/{model}/``; ``benchmarks`` is the
    folder of Snakemake benchmark TSVs (first subfolder = stage); ``source_dir`` is the
    workflow's git checkout, whose commit is recorded.
    """
    efficiency_frame = tables.efficiency_frame(load.read_jsons(efficiency))
    context = {
        "title": title,
        **_results_context(load.read_summary(summary), pd.read_csv(scores), pd.read_csv(averages),
                           efficiency_frame),
        **_models_context(train_logs, evals),
        "corpus": tables.corpus_tables(read_json(corpus)) if corpus else None,
        "vocab": tables.vocab_table(load.read_jsons(vocab)) if vocab else None,
        "compute_cost": tables.compute_cost_table(load.read_benchmarks(benchmarks)),
        "provenance": load.provenance(config or {}, source_dir),
    }
    html = render(template, context)
    with atomic_open(output) as handle:
        handle.write(html)
