"""Assemble the report from result files and render the jinja2 template to one HTML file."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import jinja2
import pandas as pd

from biocompact.compression.summary import read_summary as read_compression_summary
from biocompact.files.atomic import atomic_open
from biocompact.files.rule_files import optional_file
from biocompact.records.contamination import ContaminationRecord
from biocompact.records.corpus_statistics import CorpusStatistics
from biocompact.records.dataset_counts import PreparedFileCounts
from biocompact.records.efficiency import EfficiencyResult
from biocompact.records.language_model import LanguageModelRecord
from biocompact.records.metrics import FLOOR_DESCRIPTIONS, NO_FURTHER_FLOOR
from biocompact.records.transfer_set import TransferSetRecord
from biocompact.records.vocabulary import VocabularyStatistics
from biocompact.report import costs, glance, load, plots, tables
from biocompact.report.aggregation import AVERAGE_FORMULAS, BLURB, BLURB_FORMULA
from biocompact.report.contamination import contamination_context
from biocompact.report.floors import FloorStatus
from biocompact.report.intervals import Intervals
from biocompact.report.published import published_table, read_published
from biocompact.report.retention import RETENTION_FORMULA
from biocompact.report.settings import PretrainedVocabulary, ReportFacts
from biocompact.task_distillation.summary import read_summary as read_distillation_summary

RETENTION_TEXT = ("floor", "at_baseline", "floor_left_out")


def floor_notes(summary: pd.DataFrame) -> list[str]:
    """What the constant floors are, and why a family of the summary has none beyond the
    majority class (``records.metrics.NO_FURTHER_FLOOR``)."""
    families = set(summary["family"].dropna())
    notes = [f"{name}: {text}" for name, text in FLOOR_DESCRIPTIONS.items()]
    if "ner" in families:
        notes.append(f"NER: {NO_FURTHER_FLOOR['ner']}")
    if "similarity" in families:
        notes.append(f"similarity: {NO_FURTHER_FLOOR['similarity']}")
    if families & {"nli", "qa_yesno", "qa_factoid"}:
        notes.append(f"accuracy (NLI, yes/no, factoid QA): {NO_FURTHER_FLOOR['accuracy']}")
    return notes


def render(template: str | Path, context: dict[str, Any]) -> str:
    """Render ``template`` (autoescaped; undefined names are errors)."""
    template = Path(template)
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(template.parent),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    return environment.get_template(template.name).render(**context)


def average_formula(averages: pd.DataFrame) -> str:
    """The formula of the overall average, named by the ``method`` column of ``averages.csv``."""
    methods = set(averages["method"]) if "method" in averages else set()
    if len(methods) != 1 or not methods <= set(AVERAGE_FORMULAS):
        raise ValueError(
            f"averages: expected one averaging method of {sorted(AVERAGE_FORMULAS)}, "
            f"found {sorted(map(str, methods))}"
        )
    method = methods.pop()
    return f"{method}: {AVERAGE_FORMULAS[method]}"


def _results_context(
    summary: pd.DataFrame,
    scores: pd.DataFrame,
    averages: pd.DataFrame,
    results: list[EfficiencyResult],
    intervals: Intervals | None,
    floors: FloorStatus,
) -> dict[str, Any]:
    efficiency = costs.efficiency_frame(results)
    tradeoff = (
        glance.tradeoff_frame(averages, efficiency, intervals)
        if not efficiency.empty
        else pd.DataFrame()
    )
    context = {
        "headline": glance.headline(averages, tradeoff, efficiency, intervals, floors),
        "band": costs.BAND_TEXT,
        "glance": (
            glance.glance_table(tradeoff, efficiency, intervals, floors)
            if not tradeoff.empty
            else None
        ),
        "results": tables.results_table(summary, averages, intervals),
        "intervals": intervals is not None,
        "average_formula": average_formula(averages),
        "blurb_formula": BLURB_FORMULA if (averages["group"] == BLURB).any() else "",
        "metrics": tables.metrics_table(summary),
        "definitions": tables.definitions_table(summary),
        "seed_spread_svg": plots.seed_spread(scores, summary),
        "floor_notes": floor_notes(summary),
        "sizes": costs.size_table(results) if results else None,
        "efficiency": costs.speed_table(efficiency) if not efficiency.empty else None,
        "speedup_svg": plots.speedup(efficiency, costs.largest_model(efficiency))
        if not efficiency.empty
        else None,
        "speed_svg": None,
        "size_svg": None,
    }
    if not tradeoff.empty:
        context["speed_svg"] = plots.tradeoff(
            tradeoff, "tokens_per_second", "inference tokens per second"
        )
        context["size_svg"] = plots.tradeoff(tradeoff, "parameters", "parameters")
    return context


def _models_context(
    train_logs: Sequence[str | Path],
    evals: Sequence[str | Path],
    vocabularies: Mapping[str, PretrainedVocabulary],
    averages: pd.DataFrame,
) -> dict[str, Any]:
    logs = load.read_train_logs(train_logs)
    results = [LanguageModelRecord.read(path) for path in evals]
    stages = [Path(path).parent.parent.name for path in evals]
    return {
        "ablation": tables.ablation_table(results, stages, vocabularies, averages),
        "curves_svg": plots.training_curves(logs) if not logs.empty else None,
        "training_speed": costs.training_throughput_table(logs),
        "model_evals": tables.model_eval_table(results, stages),
        "fill_mask": tables.fill_mask_table(results),
    }


def _compression_context(summary: str | Path | None) -> dict[str, Any]:
    """The compression table and the setting its latencies were measured at."""
    frame = read_compression_summary(summary) if summary else None
    if frame is None or frame.empty:
        return {"compression": None, "compression_setting": ""}
    settings = frame[["batch_size", "sequence_length", "threads", "repeats"]].drop_duplicates()
    setting = "; ".join(
        f"batch {row.batch_size}, sequence length {row.sequence_length}, {row.threads} thread(s), "
        f"{row.repeats} rounds"
        for row in settings.itertuples()
    )
    return {"compression": tables.compression_table(frame), "compression_setting": setting}


# a report of no config: no pretraining vocabularies, registered datasets or fine-tuned models
NO_FACTS = ReportFacts()


def build_report(
    output: str | Path,
    template: str | Path,
    *,
    summary: str | Path,
    scores: str | Path,
    averages: str | Path,
    efficiency: Sequence[str | Path] = (),
    train_logs: Sequence[str | Path] = (),
    evals: Sequence[str | Path] = (),
    corpus: str | Path | Sequence[str] | None = None,
    vocab: Sequence[str | Path] = (),
    datasets: Sequence[str | Path] = (),
    task_distillation: str | Path | Sequence[str] | None = None,
    retention: str | Path | None = None,
    comparisons: str | Path | None = None,
    intervals: str | Path | None = None,
    compression: str | Path | Sequence[str] | None = None,
    contamination: str | Path | Sequence[str] | None = None,
    transfer_records: Sequence[str | Path] = (),
    benchmarks: str | Path = "results/benchmarks",
    config: Mapping[str, Any] | None = None,
    facts: ReportFacts = NO_FACTS,
    title: str = "biocompact report",
    source_dir: str | Path = ".",
    published: str | Path | None = None,
) -> None:
    """Write the self-contained HTML report.

    ``train_logs`` and ``evals`` live at ``.../{stage}/{model}/``; ``benchmarks`` is the
    folder of Snakemake benchmark TSVs (first subfolder = stage); ``source_dir`` is the
    workflow's git checkout, whose commit is recorded; ``task_distillation`` is the summary
    CSV of task-specific distillation (none: no such section); ``retention`` the students'
    retention CSV (``biocompact.report.retention``; none: no students); ``compression`` the
    compression summary CSV (``biocompact.compression.summary``; none: no such section);
    ``comparisons`` and ``intervals`` the comparisons job's CSVs (``biocompact.report.comparisons``;
    none: no intervals, rows ranked by their values alone); ``contamination`` the corpus's
    ``contamination.json`` (none: not decontaminated) and ``transfer_records`` the transfer
    sets' records (``biocompact.report.contamination``); ``published`` the CSV of
    the papers' results shown beside ours; ``datasets`` the checked-counts JSON files of the
    prepared splits of registered datasets (none: no such table); ``config`` the
    schema-validated config, shown whole, and ``facts`` what the report shows of it
    (``Config.report_facts``; by default no pretraining vocabularies, registered datasets or
    fine-tuned models to show).
    """
    corpus_file, distillation_file, compression_file, contamination_file = map(
        optional_file, (corpus, task_distillation, compression, contamination)
    )
    averages_frame = pd.read_csv(averages)
    interval_tables = Intervals.read(comparisons, intervals) if comparisons and intervals else None
    summary_frame = load.read_summary(summary)
    floors = FloorStatus.build(summary_frame, interval_tables)
    context = {
        "title": title,
        **_results_context(
            summary_frame,
            pd.read_csv(scores),
            averages_frame,
            load.read_efficiency(efficiency),
            interval_tables,
            floors,
        ),
        **_models_context(train_logs, evals, facts.vocabularies, averages_frame),
        "corpus": tables.corpus_tables(CorpusStatistics.read(corpus_file)) if corpus_file else None,
        "vocab": (
            tables.vocab_table([VocabularyStatistics.read(path) for path in vocab])
            if vocab
            else None
        ),
        "datasets": (
            tables.dataset_counts_table([PreparedFileCounts.read(path) for path in datasets])
            if datasets
            else None
        ),
        "task_distillation": (
            tables.task_distillation_tables(read_distillation_summary(distillation_file))
            if distillation_file
            else []
        ),
        "retention": (
            tables.retention_table(
                pd.read_csv(retention, dtype=dict.fromkeys(RETENTION_TEXT, str)).fillna(
                    dict.fromkeys(RETENTION_TEXT, "")
                ),
                interval_tables,
                floors,
            )
            if retention
            else None
        ),
        "retention_formula": RETENTION_FORMULA,
        **_compression_context(compression_file),
        **contamination_context(
            ContaminationRecord.read(contamination_file) if contamination_file else None,
            [TransferSetRecord.read(path) for path in transfer_records],
            facts.finetuned_models,
        ),
        "compute_cost": costs.compute_cost_table(load.read_benchmarks(benchmarks)),
        "provenance": load.provenance(config or {}, source_dir),
        "published": (
            published_table(
                load.read_summary(summary),
                averages_frame,
                read_published(published),
                facts.task_datasets,
            )
            if published
            else None
        ),
    }
    html = render(template, context)
    with atomic_open(output) as handle:
        handle.write(html)
