"""Each stage's rule entry point (run_STAGE(settings, inputs=, outputs=, threads=)) passes
the rule's named files and params to the function that does the work, unchanged."""

from __future__ import annotations

from typing import Any

import pytest

from biocompact import retention
from biocompact.corpus import stats
from biocompact.report import render


def _recorder(calls: list) -> Any:
    def record(*args: Any, **kwargs: Any) -> None:
        calls.append((args, kwargs))

    return record


def test_corpus_stats_reads_named_inputs_and_the_file_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list = []
    monkeypatch.setattr(stats, "sum_corpus_stats", _recorder(calls))
    inputs = {key: [key] for key in ("stats", "metas", "pmc_stats", "pmc_metas", "text_stats")}
    names = {"stems": ["a"], "pmc_files": ["p"], "text_sources": ["t"]}
    stats.run_corpus_stats(names, inputs=inputs, outputs={"stats": "out.json"})
    assert calls == [
        (
            (["stats"], ["metas"], ["a"], "out.json"),
            {
                "pmc_stats": ["pmc_stats"],
                "pmc_metas": ["pmc_metas"],
                "pmc_files": ["p"],
                "text_stats": ["text_stats"],
                "text_sources": ["t"],
            },
        )
    ]


def test_report_gets_every_named_input_and_param(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list = []
    monkeypatch.setattr(render, "build_report", _recorder(calls))
    render.run_report(
        {"title": "T", "benchmarks": "b"},
        inputs={"template": "t.j2", "summary": "s.csv"},
        outputs={"html": "r.html"},
    )
    assert calls == [
        (("r.html",), {"template": "t.j2", "summary": "s.csv", "title": "T", "benchmarks": "b"})
    ]


def test_aggregation_writes_the_tables_then_the_retention(monkeypatch: pytest.MonkeyPatch) -> None:
    aggregated: list = []
    retained: list = []
    monkeypatch.setattr(retention, "aggregate", _recorder(aggregated))
    monkeypatch.setattr(retention, "write_retention", _recorder(retained))
    outputs = {key: f"{key}.out" for key in ("scores", "summary", "averages", "markdown")}
    retention.run_aggregation(
        {"models": ["m"], "teachers": {"s": "m"}},
        outputs={**outputs, "retention": "retention.csv"},
    )
    assert aggregated == [((), {**outputs, "models": ["m"]})]
    assert retained == [(("scores.out", "summary.out", {"s": "m"}, "retention.csv"), {})]


def test_compression_evaluation_pairs_formats_with_their_files(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from biocompact.compression import evaluation  # imports torch: only this test

    calls: list = []
    monkeypatch.setattr(evaluation, "evaluate_formats", _recorder(calls))
    settings = {
        "formats": ["fp32", "int8"],
        "task": {"name": "t"},
        "seed": "1",
        "model": "m",
        "task_name": "t",
        "batch_sizes": [1],
        "sequence_lengths": [8],
        "repeats": 2,
    }
    evaluation.run_compression_evaluation(
        settings,
        inputs={"fp32": "fp32/model", "int8": "int8/model", "data": ["test.tsv"]},
        outputs={"evaluations": ["e32", "e8"], "predictions": ["p32", "p8"]},
        threads=3,
    )
    assert calls == [
        (
            (
                {"fp32": "fp32/model", "int8": "int8/model"},
                {"name": "t"},
                1,
                {"fp32": "e32", "int8": "e8"},
                {"fp32": "p32", "int8": "p8"},
            ),
            {
                "batch_sizes": [1],
                "sequence_lengths": [8],
                "repeats": 2,
                "threads": 3,
                "model_name": "m",
                "task_name": "t",
            },
        )
    ]
