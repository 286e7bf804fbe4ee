"""The comparisons job: paired bootstrap over test units, its p-values, Holm, ASO and the
averages' intervals, on predictions files written here with hand-known scores."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from finetuning_tasks import parsed_task
from report_results import (
    BASELINE_METRICS,
    METRICS,
    paths,
    settings,
    write_ner_run,
    write_re_run,
)
from seqeval.metrics import f1_score as conlleval_f1

from biocompact.finetuning.metrics import similarity_metrics
from biocompact.report.aggregation import BASELINE, OVERALL, STRONGEST_FLOOR, aggregate
from biocompact.report.comparisons import (
    STUDENT_TEACHER,
    VERSUS_BASELINE,
    VERSUS_BEST,
    bootstrap_p_value,
    holm,
    run_comparisons,
    score_task,
    task_rng,
    unit_weights,
)
from biocompact.taskfiles.settings import FinetuningTask

RE_TASK = parsed_task(name="re", family="re", format="biobert_tsv", metric="accuracy")
NER_TASK = parsed_task(name="ner", family="ner", format="biobert_tsv")


def entries(*tasks: FinetuningTask) -> dict[str, dict]:
    """The comparisons job's ``tasks`` param: each task's entry by its name."""
    return {task.name: task.as_entry() for task in tasks}


def run(folder: Path, **options) -> tuple[pd.DataFrame, pd.DataFrame]:
    outputs = {"comparisons": folder / "comparisons.csv", "intervals": folder / "intervals.csv"}
    run_comparisons(settings(folder, **options), outputs=outputs)
    return pd.read_csv(outputs["comparisons"]), pd.read_csv(outputs["intervals"])


def row(table: pd.DataFrame, kind: str, model: str, task: str = "re") -> pd.Series:
    """The comparison of ``kind`` of ``model`` on the task (or average) row ``task``."""
    level = "overall" if task == OVERALL else "task"
    match = table[
        (table["kind"] == kind)
        & (table["model"] == model)
        & (table["row"] == task)
        & (table["level"] == level)
    ]
    assert len(match) == 1, match
    return match.iloc[0]


GOLD = ["1", "0"] * 20  # 40 examples


def flipped(labels: list[str], wrong: set[int]) -> list[str]:
    return [("0" if g == "1" else "1") if i in wrong else g for i, g in enumerate(labels)]


def test_identical_predictions_differ_by_exactly_zero_with_a_zero_width_interval(tmp_path):
    predicted = flipped(GOLD, {1, 5, 9, 30})
    for model in ("a", "b"):
        for seed in (1, 2):
            write_re_run(tmp_path, model, seed, GOLD, predicted)
    write_re_run(tmp_path, BASELINE, None, GOLD, ["1"] * 40)
    table, _ = run(tmp_path, models=["a", "b"], tasks=entries(RE_TASK), seeds=[1, 2])
    same = row(table, VERSUS_BEST, "b")
    assert same["reference"] == "a"  # the first of two equal scores is the row's best
    assert (same["difference"], same["ci_low"], same["ci_high"]) == (0.0, 0.0, 0.0)
    assert same["p_value"] == 1.0 and not same["distinguishable"]
    # The baseline (0.5) against 36 / 40 = 0.9: distinguishable.
    above = row(table, VERSUS_BASELINE, "a")
    assert above["difference"] == pytest.approx(0.4) and above["ci_low"] > 0
    assert above["distinguishable"] and np.isnan(above["aso_eps_min"])  # one baseline score


def test_a_model_right_wherever_the_other_is_and_more_has_an_interval_above_zero(tmp_path):
    """b errs on 12 examples, a on 4 of those 12 only: a - b >= 0 on every resample."""
    for seed in (1, 2, 3):
        write_re_run(tmp_path, "a", seed, GOLD, flipped(GOLD, {0, 1, 2, 3}))
        write_re_run(tmp_path, "b", seed, GOLD, flipped(GOLD, set(range(12))))
    write_re_run(tmp_path, BASELINE, None, GOLD, ["1"] * 40)
    table, intervals = run(
        tmp_path, models=["a", "b"], tasks=entries(RE_TASK), seeds=[1, 2, 3], teachers={"b": "a"}
    )
    worse = row(table, VERSUS_BEST, "b")
    assert worse["difference"] == pytest.approx(28 / 40 - 36 / 40)
    assert worse["ci_high"] < 0 and worse["distinguishable"]
    # Every resample has d* <= 0: p = 2 (1 + #{d* >= 0}) / (B + 1), d* = 0 only when no
    # example of the 8 that only b gets wrong is drawn ((32/40)^40 = 1.3e-4 a resample).
    assert worse["p_value"] == pytest.approx(2 / 201)
    student = row(table, STUDENT_TEACHER, "b")
    assert student["retention"] == pytest.approx(28 / 36)
    assert student["retention_low"] < student["retention"] < student["retention_high"] < 1
    # ASO over seeds: a's 3 seeds all 0.9, b's all 0.7: a dominates completely.
    assert student["aso_leader"] == "a" and student["aso_eps_min"] == 0.0
    a = intervals[(intervals["model"] == "a") & (intervals["row"] == "re")].iloc[0]
    assert a["value"] == pytest.approx(0.9) and a["ci_low"] < 0.9 < a["ci_high"]


def test_both_models_are_scored_on_the_same_resampled_units(tmp_path):
    """Per resample, a - b is the hand-computed difference on the units that resample drew:
    the weights of the task's one generator, shared by both models."""
    a_predicted, b_predicted = flipped(GOLD, {0, 1}), flipped(GOLD, {2, 3, 4, 5, 6})
    write_re_run(tmp_path, "a", 1, GOLD, a_predicted)
    write_re_run(tmp_path, "b", 1, GOLD, b_predicted)
    scores = score_task(
        RE_TASK,
        {model: [paths(tmp_path, model, "re", 1)] for model in ("a", "b")},
        resamples=50,
        seed=7,
    ).scores
    weights = unit_weights(40, 50, task_rng(7, "re"))
    a_right = np.array([g == p for g, p in zip(GOLD, a_predicted)], dtype=float)
    b_right = np.array([g == p for g, p in zip(GOLD, b_predicted)], dtype=float)
    assert scores["a"].resampled == pytest.approx(weights @ a_right / 40)
    assert scores["b"].resampled == pytest.approx(weights @ b_right / 40)
    assert (weights.sum(axis=1) == 40).all()


def test_ner_f1_on_a_resample_equals_conlleval_on_the_resampled_sentences(tmp_path):
    rng = np.random.default_rng(3)
    tags = ["O", "B-D", "I-D"]
    gold = [list(rng.choice(tags, size=int(rng.integers(1, 9)))) for _ in range(30)]
    predicted = [[t if rng.random() < 0.7 else str(rng.choice(tags)) for t in s] for s in gold]
    write_ner_run(tmp_path, "a", 1, gold, predicted)
    scores = score_task(
        NER_TASK, {"a": [paths(tmp_path, "a", "ner", 1)]}, resamples=20, seed=0
    ).scores["a"]
    weights = unit_weights(30, 20, task_rng(0, "ner")).astype(int)
    for resample, counts in enumerate(weights):
        drawn = [i for i, times in enumerate(counts) for _ in range(times)]
        expected = conlleval_f1([gold[i] for i in drawn], [predicted[i] for i in drawn])
        assert scores.resampled[resample] == pytest.approx(expected, rel=1e-12)
    assert scores.value == conlleval_f1(gold, predicted)


def test_results_are_reproducible_with_a_seed(tmp_path):
    for model, wrong in (("a", {0, 1, 2}), ("b", {3, 4, 5, 6, 7})):
        write_re_run(tmp_path, model, 1, GOLD, flipped(GOLD, wrong))
    write_re_run(tmp_path, BASELINE, None, GOLD, ["1"] * 40)
    options = {"models": ["a", "b"], "tasks": entries(RE_TASK), "seeds": [1]}
    first, _ = run(tmp_path, **options)
    again, _ = run(tmp_path, **options)
    other, _ = run(tmp_path, **options, seed=1)
    pd.testing.assert_frame_equal(first, again)
    assert not first["ci_low"].equals(other["ci_low"])


def test_the_overall_average_and_its_interval_follow_the_aggregation(tmp_path):
    """Two tasks; the overall row's value is averages.csv's and its interval is the mean of
    the tasks' resampled scores."""
    rng = np.random.default_rng(5)
    tags = ["O", "B-D", "I-D"]
    ner_gold = [list(rng.choice(tags, size=6)) for _ in range(20)]
    for model, noise in (("a", 0.1), ("b", 0.4)):
        for seed in (1, 2):
            write_re_run(tmp_path, model, seed, GOLD, flipped(GOLD, set(range(int(40 * noise)))))
            ner_predicted = [
                [t if rng.random() > noise else "O" for t in sentence] for sentence in ner_gold
            ]
            write_ner_run(tmp_path, model, seed, ner_gold, ner_predicted)
    write_re_run(tmp_path, BASELINE, None, GOLD, ["1"] * 40)
    write_ner_run(tmp_path, BASELINE, None, ner_gold, [["O"] * 6] * 20)
    tasks = entries(RE_TASK, NER_TASK)
    table, intervals = run(tmp_path, models=["a", "b"], tasks=tasks, seeds=[1, 2])
    aggregate(
        *(tmp_path / name for name in ("scores.csv", "summary.csv", "averages.csv", "s.md")),
        models=["a", "b"],
        tasks=list(tasks),
        seeds=[1, 2],
        metrics_pattern=str(tmp_path / METRICS),
        baseline_pattern=str(tmp_path / BASELINE_METRICS),
    )
    # n_seeds: the 2 seeds of a task's row, 1 of the baseline's, none on an average's (a
    # family's, the overall; there the strongest floor's average stands beside the floors')
    written = pd.read_csv(tmp_path / "intervals.csv", dtype=str, keep_default_na=False)
    seeds = written.groupby(["level", "model"])["n_seeds"].agg(set).to_dict()
    assert seeds == {
        ("task", "a"): {"2"},
        ("task", "b"): {"2"},
        ("task", BASELINE): {"1"},
        **{
            (level, model): {""}
            for level in ("family", "overall")
            for model in ("a", "b", BASELINE, STRONGEST_FLOOR)
        },
    }
    averages = pd.read_csv(tmp_path / "averages.csv")
    for model in ("a", "b", BASELINE):
        expected = averages[(averages["model"] == model) & (averages["group"] == OVERALL)]
        overall = intervals[(intervals["model"] == model) & (intervals["row"] == OVERALL)]
        assert overall["value"].item() == pytest.approx(expected["value"].item(), rel=1e-12)
        assert overall["ci_low"].item() <= overall["value"].item() <= overall["ci_high"].item()
    overall = row(table, VERSUS_BEST, "b", OVERALL)
    assert overall["level"] == "overall" and overall["holm_tests"] == 1
    assert overall["p_holm"] == overall["p_value"]
    # Holm's family: b against the best over the 2 tasks.
    task_rows = table[(table["kind"] == VERSUS_BEST) & (table["level"] == "task")]
    assert set(task_rows["holm_tests"]) == {2}
    assert sorted(task_rows["p_holm"]) == pytest.approx(holm(task_rows["p_value"].tolist()))


def test_predictions_that_disagree_with_their_metrics_file_are_an_error(tmp_path):
    write_re_run(tmp_path, "a", 1, GOLD, GOLD)
    write_re_run(tmp_path, "b", 1, GOLD, GOLD)
    metrics_path, _ = paths(tmp_path, "b", "re", 1)
    record = json.loads(metrics_path.read_text())
    record["metrics"]["accuracy"] = 0.5
    metrics_path.write_text(json.dumps(record))
    runs = {model: [paths(tmp_path, model, "re", 1)] for model in ("a", "b")}
    with pytest.raises(
        ValueError,
        match=r"b/re/seed1/predictions.tsv: its predictions give "
        r"accuracy 1.000000, its metrics file 0.500000",
    ):
        score_task(RE_TASK, runs, resamples=10, seed=0)


def test_runs_on_different_test_units_are_an_error(tmp_path):
    write_re_run(tmp_path, "a", 1, GOLD, GOLD)
    write_re_run(tmp_path, "b", 1, GOLD[:-1], GOLD[:-1])
    runs = {model: [paths(tmp_path, model, "re", 1)] for model in ("a", "b")}
    with pytest.raises(ValueError, match="do not hold the same test units"):
        score_task(RE_TASK, runs, resamples=10, seed=0)


def test_bootstrap_p_value_by_hand():
    # #{d <= 0} = 2 (-1, 0), #{d >= 0} = 4: 2 (1 + 2) / 6 = 1.
    assert bootstrap_p_value(np.array([-1.0, 0.0, 1.0, 2.0, 3.0])) == 1.0
    # No resample at or below 0 of 9: 2 (1 + 0) / 10.
    assert bootstrap_p_value(np.arange(1.0, 10.0)) == pytest.approx(0.2)
    # 1 of 19 at or below 0: 2 (1 + 1) / 20.
    assert bootstrap_p_value(np.array([-0.5] + [1.0] * 18)) == pytest.approx(0.2)


def test_holm_by_hand():
    """Sorted 0.005, 0.01, 0.03, 0.04 are multiplied by 4, 3, 2, 1: 0.02, 0.03, 0.06, 0.04;
    the running maximum makes the last 0.06."""
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])  # 0.5 x 2 = 1; the max keeps 0.9 at 1


def test_a_metric_without_a_sum_form_is_recomputed_on_the_resampled_items(tmp_path):
    """Spearman's rho of a similarity task: each resample's value is metrics.py's on the pairs
    that resample drew."""
    rng = np.random.default_rng(2)
    gold = [round(float(x), 6) for x in rng.uniform(0, 4, 15)]
    predicted = [round(g + float(rng.normal(0, 1)), 6) for g in gold]
    metrics_path, predictions_path = paths(tmp_path, "a", "sts", 1)
    rows = "".join(f"{i}\t{g}\t{p:.6f}\n" for i, (g, p) in enumerate(zip(gold, predicted)))
    predictions_path.write_text("index\tgold\tpredicted\n" + rows)
    spearman = similarity_metrics()["spearman"].compute
    record = {
        "model": "a",
        "task": "sts",
        "seed": 1,
        "family": "similarity",
        "primary_metric": "spearman",
        "labels": [],
    }
    record["metrics"] = {"spearman": spearman(gold, predicted)}
    metrics_path.write_text(json.dumps(record))
    task = parsed_task(
        name="sts", family="similarity", format="similarity_jsonl", metric="spearman"
    )
    scores = score_task(task, {"a": [(metrics_path, predictions_path)]}, 10, 0)
    weights = unit_weights(15, 10, task_rng(0, "sts")).astype(int)
    for counts, value in zip(weights, scores.scores["a"].resampled):
        drawn = [i for i, times in enumerate(counts) for _ in range(times)]
        assert value == spearman([gold[i] for i in drawn], [predicted[i] for i in drawn])
