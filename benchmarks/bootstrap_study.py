"""Time the comparisons job (paired bootstrap, Holm, ASO) on a BLURB-size study.

A synthetic study with BLURB's 13 tasks at their test-set sizes (units: sentences for NER,
abstracts for HoC, questions for PubMedQA and BioASQ, examples elsewhere), 6 models x 5
seeds and the majority baseline: predictions files with a model-dependent error rate and
metrics files scored by ``metrics.py``, written once; then ``run_comparisons`` with
``--resamples`` resamples is timed ``--repeats`` times (wall-clock, the whole job: reading
every predictions file, the bootstrap, ASO and writing the CSVs).

    python benchmarks/bootstrap_study.py --resamples 1000 --repeats 3
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

from biocompact.entries import parse_entry
from biocompact.finetuning import metrics as defined
from biocompact.records.base import record_data
from biocompact.records.metrics import MetricsRecord
from biocompact.report.aggregation import BASELINE
from biocompact.report.comparisons import run_comparisons
from biocompact.report.settings import ComparisonStudy

# BLURB's tasks: family, metric, test units, items per unit (Gu et al. 2021, Table 1 sizes).
TASKS = {
    "bc5cdr-chem": ("ner", "f1", 4797, 1),
    "bc5cdr-disease": ("ner", "f1", 4797, 1),
    "ncbi-disease": ("ner", "f1", 940, 1),
    "bc2gm": ("ner", "f1", 5038, 1),
    "jnlpba": ("ner", "f1", 3856, 1),
    "ebm-pico": ("ner", "word_macro_f1", 2000, 1),
    "chemprot": ("re", "micro_f1", 16943, 1),
    "ddi": ("re", "micro_f1", 5761, 1),
    "gad": ("re", "binary_f1", 534, 1),
    "biosses": ("similarity", "pearson", 20, 1),
    "hoc": ("dc", "abstract_micro_f1", 315, 9),
    "pubmedqa": ("qa_yesno", "accuracy", 500, 1),
    "bioasq": ("qa_yesno", "accuracy", 140, 1),
}
TYPES = {
    "ner": "ner",
    "re": "relation",
    "similarity": "similarity",
    "dc": "classification",
    "qa_yesno": "qa",
}
FORMATS = {  # the report reads a task's predictions with the family of its format
    "ner": "biobert_tsv",
    "re": "biobert_tsv",
    "similarity": "similarity_jsonl",
    "dc": "hoc_tsv",
    "qa_yesno": "pubmedqa_json",
}
MODELS = ["teacher", "student-6l", "student-4l", "student-3l", "scratch-4l", "external"]
SEEDS = [1, 2, 3, 4, 5]
NER_TAGS = ["O", "O", "O", "O", "B-Chemical", "I-Chemical", "B-Disease", "I-Disease"]
RE_LABELS = ["CPR:3", "CPR:4", "CPR:5", "CPR:6", "CPR:9", "false"]
HOC_LABELS = [str(i) for i in range(10)]


def _noisy(value, choices, error: float, rng: random.Random):
    return rng.choice(choices) if rng.random() < error else value


def _gold(family: str, units: int, per_unit: int, rng: random.Random) -> list:
    if family == "ner":
        return [[rng.choice(NER_TAGS) for _ in range(rng.randint(10, 40))] for _ in range(units)]
    if family == "re":
        return [rng.choice(RE_LABELS) for _ in range(units)]
    if family == "similarity":
        return [rng.uniform(0, 4) for _ in range(units)]
    if family == "dc":
        return [
            (str(u), frozenset(rng.sample(HOC_LABELS, rng.randint(0, 2))))
            for u in range(units)
            for _ in range(per_unit)
        ]
    return [rng.choice(["yes", "no"]) for _ in range(units)]


def _predict(family: str, gold: list, error: float, rng: random.Random) -> list:
    if family == "ner":
        return [[_noisy(t, NER_TAGS, error, rng) for t in sentence] for sentence in gold]
    if family == "re":
        return [_noisy(g, RE_LABELS, error, rng) for g in gold]
    if family == "similarity":
        return [g + rng.gauss(0, 4 * error) for g in gold]
    if family == "dc":
        return [
            frozenset(rng.sample(HOC_LABELS, 1)) if rng.random() < error else labels
            for _, labels in gold
        ]
    probabilities = []
    for g in gold:
        label = _noisy(g, ["yes", "no"], error, rng)
        p = rng.uniform(0.5, 1)
        probabilities.append(
            defined.ScoredLabel(label, (p, 1 - p) if label == "no" else (1 - p, p))
        )
    return probabilities


def _metrics(family: str, metric: str) -> defined.Metric:
    if family == "ner":
        return defined.ner_metrics(False, NER_TAGS)[metric]
    if family == "re":
        labels = ["0", "1"] if metric == "binary_f1" else RE_LABELS
        return defined.classification_metrics(labels, "false" if metric == "micro_f1" else None)[
            metric
        ]
    if family == "similarity":
        return defined.similarity_metrics()[metric]
    if family == "dc":
        return defined.multilabel_metrics(HOC_LABELS)[metric]
    return defined.yesno_metrics(["no", "yes"], "question")[metric]


def _rows(family: str, gold: list, predicted: list) -> str:
    """The predictions file of ``family`` (each family's ``write_predictions`` form)."""
    if family == "ner":
        return "".join(
            "".join(f"w\t{g}\t{p}\n" for g, p in zip(gs, ps)) + "\n"
            for gs, ps in zip(gold, predicted)
        )
    if family == "dc":
        return "index\tgold\tpredicted\tdocument\n" + "".join(
            f"{doc}_s{i}\t{','.join(sorted(g))}\t{','.join(sorted(p))}\t{doc}\n"
            for i, ((doc, g), p) in enumerate(zip(gold, predicted))
        )
    if family == "qa_yesno":
        return "question\tgold\tpredicted\tprobabilities\n" + "".join(
            f"q{i}\t{g}\t{p.label}\t[{p.probabilities[0]:.6f}, {p.probabilities[1]:.6f}]\n"
            for i, (g, p) in enumerate(zip(gold, predicted))
        )
    return "index\tgold\tpredicted\n" + "".join(
        f"{i}\t{g}\t{p:.6f}\n" if family == "similarity" else f"{i}\t{g}\t{p}\n"
        for i, (g, p) in enumerate(zip(gold, predicted))
    )


def _write_run(folder: Path, family: str, metric: str, gold: list, predicted: list, run: tuple):
    """One run's predictions.tsv and metrics.json; ``run``: (model, task, seed)."""
    if family == "qa_yesno":  # predictions files keep 6 decimals of a probability
        predicted = [
            defined.ScoredLabel(p.label, tuple(round(x, 6) for x in p.probabilities))
            for p in predicted
        ]
    if family == "similarity":
        predicted = [round(p, 6) for p in predicted]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "predictions.tsv").write_text(_rows(family, gold, predicted), encoding="utf-8")
    labels = {"re": RE_LABELS, "dc": HOC_LABELS, "qa_yesno": ["no", "yes"], "ner": NER_TAGS}
    model, task, seed = run
    record = MetricsRecord(
        model=model,
        task=task,
        seed=seed,
        family=family,
        primary_metric=metric,
        metrics={metric: _metrics(family, metric).compute(gold, predicted)},
        labels=["0", "1"] if metric == "binary_f1" else labels.get(family, []),
    )
    (folder / "metrics.json").write_text(json.dumps(record_data(record)), encoding="utf-8")


def write_study(root: Path) -> None:
    """Every run's predictions and metrics of the synthetic study under ``root``."""
    rng = random.Random(0)
    for task, (family, metric, units, per_unit) in TASKS.items():
        gold = _gold(family, units, per_unit, rng)
        if metric == "binary_f1":
            gold = [rng.choice(["0", "1"]) for _ in gold]
        baseline = _predict(family, gold, 1.0, rng)
        _write_run(
            root / "baselines" / task, family, metric, gold, baseline, (BASELINE, task, None)
        )
        for rank, model in enumerate(MODELS):
            for seed in SEEDS:
                error = 0.1 + 0.02 * rank + 0.01 * rng.random()
                predicted = _predict(family, gold, error, rng)
                if metric == "binary_f1":
                    predicted = [_noisy(g, ["0", "1"], error, rng) for g in gold]
                folder = root / model / task / f"seed{seed}"
                _write_run(folder, family, metric, gold, predicted, (model, task, seed))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        write_study(root)
        study = parse_entry(
            ComparisonStudy,
            {
                "models": MODELS,
                "tasks": {
                    task: {
                        "name": task,
                        "family": family,
                        "format": FORMATS[family],
                        "train": "",  # no task files: the study scores predictions files alone
                        "test": "",
                        "negative_label": "false" if task != "gad" else None,
                    }
                    for task, (family, *_) in TASKS.items()
                },
                "seeds": SEEDS,
                "metrics_pattern": str(root / "{model}/{task}/seed{seed}/metrics.json"),
                "predictions_pattern": str(root / "{model}/{task}/seed{seed}/predictions.tsv"),
                "baseline_metrics_pattern": str(root / "baselines/{task}/metrics.json"),
                "baseline_predictions_pattern": str(root / "baselines/{task}/predictions.tsv"),
                "teachers": {student: "teacher" for student in MODELS[1:4]},
                "average": "tasks",
                "blurb_types": {
                    task: "pico" if task == "ebm-pico" else TYPES[family]
                    for task, (family, *_) in TASKS.items()
                },
                "resamples": arguments.resamples,
                "seed": 0,
            },
            "bootstrap study",
        )
        seconds, cpu_seconds = [], []
        for _ in range(arguments.repeats):
            outputs = {"comparisons": root / "c.csv", "intervals": root / "i.csv"}
            start, cpu_start = time.perf_counter(), time.process_time()
            table = run_comparisons(study, outputs=outputs)
            seconds.append(time.perf_counter() - start)
            cpu_seconds.append(time.process_time() - cpu_start)
    print(
        f"comparisons job, {len(TASKS)} tasks x {len(MODELS)} models x {len(SEEDS)} seeds + "
        f"baseline, {arguments.resamples} resamples: {len(table)} comparisons, "
        f"{int(table['aso_eps_min'].notna().sum())} with ASO"
    )
    for name, values in (("wall-clock", seconds), ("CPU", cpu_seconds)):
        print(
            f"{name}: median {statistics.median(values):.1f} s (min {min(values):.1f}, max "
            f"{max(values):.1f}) over {arguments.repeats} runs"
        )


if __name__ == "__main__":
    main()
