"""Result files as the workflow writes them, for report tests (imported as ``report_results``)."""

from __future__ import annotations

import json
from pathlib import Path

from biocompact.entries import parse_entry
from biocompact.finetuning.metrics import classification_metrics, ner_metrics
from biocompact.records.metrics import MAJORITY_CLASS
from biocompact.report.aggregation import aggregate
from biocompact.report.comparisons import run_comparisons
from biocompact.report.render import build_report
from biocompact.report.retention import write_retention
from biocompact.report.settings import ComparisonStudy

# Where the comparisons job finds a study's runs and baselines (its settings' patterns).
METRICS = "runs/{model}/{task}/seed{seed}/metrics.json"
PREDICTIONS = "runs/{model}/{task}/seed{seed}/predictions.tsv"
BASELINE_METRICS = "baselines/{task}/metrics.json"
BASELINE_PREDICTIONS = "baselines/{task}/predictions.tsv"
FLOORS = "baselines/{task}/floors"  # the other constant floors: FLOOR/metrics.json...


def write_json(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


def efficiency_result(
    model: str,
    *,
    layer_parameters: int,
    latencies_ms: list[float],
    batch_size: int,
    flops_per_token: float,
    weights_mb: float,
    layers: int,
    peak_activations_mb: float,
    compared_with: list[str],
) -> dict:
    """An efficiency stage's result file (``records.efficiency.EfficiencyResult``) of a model
    whose embeddings hold 100 parameters, with one CPU measurement at length 128 timed once a
    round (its quartiles the extremes)."""
    median = sorted(latencies_ms)[len(latencies_ms) // 2]
    return {
        "model": model,
        "model_path": f"results/finetuning/{model}/model",
        "parameters": {
            "total": layer_parameters + 100,
            "embedding": 100,
            "non_embedding": layer_parameters,
            "layers": layer_parameters,
        },
        "weights_mb": weights_mb,
        "architecture": {
            "layers": layers,
            "hidden_size": 8,
            "intermediate_size": 32,
            "attention_heads": 2,
            "vocab_size": 100,
            "max_position_embeddings": 128,
        },
        "flops_formula": "2 * layer_parameters + 4 * layers * sequence_length * hidden_size",
        "measurements": [
            {
                "device": "cpu",
                "batch_size": batch_size,
                "sequence_length": 128,
                "latency_ms": median,
                "latency_ms_runs": latencies_ms,
                "latency_ms_min": min(latencies_ms),
                "latency_ms_max": max(latencies_ms),
                "latency_ms_q1": min(latencies_ms),
                "latency_ms_q3": max(latencies_ms),
                "sequences_per_second": batch_size * 1000 / median,
                "tokens_per_second": batch_size * 128000 / median,
                "flops_per_token": flops_per_token,
                "peak_activations_mb": peak_activations_mb,
            }
        ],
        "compared_with": compared_with,
        "devices": {"cpu": "x86_64"},
        "threads": 2,
        "repeats": len(latencies_ms),
        "timing": "interleaved rounds",
        "torch": "2.13.0+cpu",
    }


def metrics_record(
    model: str,
    task: str,
    seed: int | None,
    *,
    family: str,
    primary: str,
    values: dict[str, float],
    definitions: dict[str, str] | None = None,
) -> dict:
    """A fine-tuning run's or baseline's metrics.json: its ``values``, ``primary`` among them,
    with their ``definitions`` when given."""
    record = {
        "model": model,
        "task": task,
        "seed": seed,
        "family": family,
        "primary_metric": primary,
        "metrics": values,
    }
    if definitions is not None:
        record["definitions"] = definitions
    return record


def metrics(
    model: str, task: str, seed: int | None, f1: float, accuracy: float | None = None
) -> dict:
    """``metrics_record`` with F1 primary, accuracy when given, the family the task name's
    first part (ner-a: ner)."""
    values = {"f1": f1}
    definitions = {"f1": f"F1 of {task}"}
    if accuracy is not None:
        values["accuracy"] = accuracy
        definitions["accuracy"] = "share of correct predictions"
    return metrics_record(
        model,
        task,
        seed,
        family=task.split("-")[0],
        primary="f1",
        values=values,
        definitions=definitions,
    )


def write_re_run(
    folder: Path,
    model: str,
    seed: int | None,
    gold: list,
    predicted: list,
    task: str = "re",
    *,
    primary: str = "accuracy",
) -> None:
    """An RE run's predictions and metrics.json (``primary``: accuracy unless given), scored
    by metrics.py; a constant floor other than the majority class (seed None) goes into the
    task's ``FLOORS`` folder."""
    metrics_path, predictions_path = paths(folder, model, task, seed)
    rows = "".join(f"{i}\t{g}\t{p}\n" for i, (g, p) in enumerate(zip(gold, predicted)))
    predictions_path.write_text("index\tgold\tpredicted\n" + rows)
    values = {
        name: m.compute(gold, predicted) for name, m in classification_metrics(["0", "1"]).items()
    }
    record = {"model": model, "task": task, "seed": seed, "family": "re"}
    record.update(primary_metric=primary, metrics=values, labels=["0", "1"])
    metrics_path.write_text(json.dumps(record))


def write_ner_run(folder: Path, model: str, seed: int | None, gold: list, predicted: list) -> None:
    """A NER run's CoNLL predictions and metrics.json (conlleval F1 primary)."""
    metrics_path, predictions_path = paths(folder, model, "ner", seed)
    predictions_path.write_text(
        "".join(
            "".join(f"w\t{g}\t{p}\n" for g, p in zip(gs, ps)) + "\n"
            for gs, ps in zip(gold, predicted)
        )
    )
    labels = ["B-D", "I-D", "O"]
    values = {name: m.compute(gold, predicted) for name, m in ner_metrics(False, labels).items()}
    record = {"model": model, "task": "ner", "seed": seed, "family": "ner"}
    record.update(primary_metric="f1", metrics=values, labels=labels)
    metrics_path.write_text(json.dumps(record))


def paths(folder: Path, model: str, task: str, seed: int | None) -> tuple[Path, Path]:
    """The metrics.json and predictions of a run (``seed`` None: the task's constant floor
    ``model``, the majority class by default)."""
    if seed is None and model not in ("", MAJORITY_CLASS):
        floor = folder / FLOORS.format(task=task) / model
        metrics, predictions = floor / "metrics.json", floor / "predictions.tsv"
    elif seed is None:
        metrics = folder / BASELINE_METRICS.format(task=task)
        predictions = folder / BASELINE_PREDICTIONS.format(task=task)
    else:
        metrics = folder / METRICS.format(model=model, task=task, seed=seed)
        predictions = folder / PREDICTIONS.format(model=model, task=task, seed=seed)
    metrics.parent.mkdir(parents=True, exist_ok=True)
    return metrics, predictions


def settings(
    folder: Path, models: list[str], tasks: dict, seeds: list[int], **extra
) -> ComparisonStudy:
    """The comparisons job's study of the runs under ``folder`` (``tasks``: name -> task
    entry; 200 resamples, seed 0)."""
    entry = {
        "models": models,
        "tasks": tasks,
        "seeds": seeds,
        "metrics_pattern": str(folder / METRICS),
        "predictions_pattern": str(folder / PREDICTIONS),
        "baseline_metrics_pattern": str(folder / BASELINE_METRICS),
        "baseline_predictions_pattern": str(folder / BASELINE_PREDICTIONS),
        "floors_pattern": str(folder / FLOORS),
        "teachers": {},
        "average": "tasks",
        "blurb_types": {},
        "resamples": 200,
        "seed": 0,
        **extra,
    }
    return parse_entry(ComparisonStudy, entry, "test study")


def report_of_study(study: ComparisonStudy, root: Path, repo_root: Path) -> str:
    """The report's HTML of ``study``'s runs under ``root`` (written by ``settings``), built
    as the workflow's rules build it: comparisons (``root/comparisons.csv``, ``intervals.csv``),
    aggregation, retention, then the report (``root/report.html``)."""
    outputs = {"comparisons": root / "comparisons.csv", "intervals": root / "intervals.csv"}
    run_comparisons(study, outputs=outputs)
    tables = [root / name for name in ("scores.csv", "summary.csv", "averages.csv", "s.md")]
    aggregate(
        *tables,
        models=list(study.models),
        tasks=list(study.tasks),
        seeds=list(study.seeds),
        metrics_pattern=study.metrics_pattern,
        baseline_pattern=study.baseline_metrics_pattern,
        floors_pattern=study.floors_pattern,
    )
    write_retention(tables[0], tables[1], dict(study.teachers), root / "retention.csv")
    build_report(
        root / "report.html",
        repo_root / "workflow/report/report.html.j2",
        summary=tables[1],
        scores=tables[0],
        averages=tables[2],
        retention=root / "retention.csv",
        benchmarks=root / "benchmarks",
        source_dir=repo_root,
        **outputs,
    )
    return (root / "report.html").read_text(encoding="utf-8")
