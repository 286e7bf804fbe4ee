"""Aggregation over seeds on hand-made metrics files, with a missing and a broken run."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest
from report_results import metrics_record, write_json

from biocompact.report.aggregation import AVERAGE_FORMULAS, BASELINE, aggregate

PATTERN = "ft/{model}/{task}/seed{seed}/metrics.json"
BASELINE_PATTERN = "baselines/{task}/metrics.json"
TASKS = {
    "t-ner": ("ner", "f1"),
    "t-re": ("re", "binary_f1"),
    "t-qa": ("qa", "accuracy"),
    "t-ner2": ("ner", "f1"),
}
FIXTURE_TASKS = ["t-ner", "t-re", "t-qa"]
# (model, task) -> one primary-metric value per seed 1..5; None = no file.
VALUES = {
    ("big", "t-ner"): [0.80, 0.82, 0.81, 0.85, 0.79],
    ("big", "t-re"): [0.60, 0.62, 0.64, 0.66, 0.68],
    ("small", "t-ner"): [0.70, 0.74, None, 0.72, 0.76],
    ("small", "t-re"): [0.50, 0.52, 0.54, 0.56, None],
}


def write_metrics(path: Path, model: str, task: str, seed: int | None, value: float) -> None:
    family, primary = TASKS[task]
    metrics = {primary: value, "precision": value + 0.01}
    definitions = {primary: f"{primary} of {task}", "precision": "precision"}
    write_json(
        path,
        metrics_record(
            model,
            task,
            seed,
            family=family,
            primary=primary,
            values=metrics,
            definitions=definitions,
        ),
    )


@pytest.fixture
def outputs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, pd.DataFrame | str]:
    monkeypatch.chdir(tmp_path)
    for (model, task), values in VALUES.items():
        for seed, value in enumerate(values, start=1):
            if value is not None:
                write_metrics(
                    Path(PATTERN.format(model=model, task=task, seed=seed)),
                    model,
                    task,
                    seed,
                    value,
                )
    broken = Path(PATTERN.format(model="small", task="t-re", seed=5))
    broken.parent.mkdir(parents=True)
    broken.write_text("{not json", encoding="utf-8")
    write_metrics(Path(BASELINE_PATTERN.format(task="t-ner")), BASELINE, "t-ner", None, 0.0)
    write_metrics(Path(BASELINE_PATTERN.format(task="t-re")), BASELINE, "t-re", None, 0.5)
    aggregate(
        "scores.csv",
        "summary.csv",
        "averages.csv",
        "summary.md",
        models=["big", "small"],
        tasks=FIXTURE_TASKS,
        seeds=[1, 2, 3, 4, 5],
        metrics_pattern=PATTERN,
        baseline_pattern=BASELINE_PATTERN,
    )
    return {
        "scores": pd.read_csv("scores.csv"),
        "summary": pd.read_csv("summary.csv"),
        "averages": pd.read_csv("averages.csv"),
        "markdown": Path("summary.md").read_text(),
    }


def row(table: pd.DataFrame, **keys) -> pd.Series:
    selected = table
    for key, value in keys.items():
        selected = selected[selected[key] == value]
    assert len(selected) == 1, selected
    return selected.iloc[0]


def test_full_grid_statistics(outputs):
    r = row(outputs["summary"], model="big", task="t-ner", metric="f1")
    assert r["median"] == pytest.approx(0.81)
    assert r["mean"] == pytest.approx(0.814)
    assert r["std"] == pytest.approx(math.sqrt(0.00212 / 4))
    assert (r["min"], r["max"]) == (pytest.approx(0.79), pytest.approx(0.85))
    assert (r["n_seeds"], r["n_expected"], r["primary"]) == (5, 5, True)
    assert not row(outputs["summary"], model="big", task="t-ner", metric="precision")["primary"]


def test_missing_seed_is_counted_and_listed(outputs):
    r = row(outputs["summary"], model="small", task="t-ner", metric="f1")
    assert r["median"] == pytest.approx(0.73)  # (0.72 + 0.74) / 2 over the 4 present seeds
    assert r["std"] == pytest.approx(math.sqrt(0.002 / 3))
    assert (r["n_seeds"], r["n_expected"], str(r["missing_seeds"])) == (4, 5, "3")
    missing = outputs["scores"].query("model == 'small' and task == 't-ner' and seed == 3")
    assert set(missing["status"]) == {"missing"} and missing["value"].isna().all()
    assert set(missing["metric"]) == {"f1", "precision"}


def test_unreadable_file_is_missing(outputs):
    r = row(outputs["summary"], model="small", task="t-re", metric="binary_f1")
    assert (r["median"], r["n_seeds"], str(r["missing_seeds"])) == (pytest.approx(0.53), 4, "5")


def test_task_without_any_result_is_kept(outputs):
    r = row(outputs["summary"], model="big", task="t-qa")
    assert (r["n_seeds"], r["n_expected"], r["missing_seeds"]) == (0, 5, "1;2;3;4;5")
    assert math.isnan(r["median"])


def test_baseline_rows(outputs):
    r = row(outputs["summary"], model=BASELINE, task="t-re", metric="binary_f1")
    assert (r["median"], r["n_seeds"], r["n_expected"]) == (0.5, 1, 1)
    assert math.isnan(r["std"])
    assert row(outputs["summary"], model=BASELINE, task="t-qa")["n_seeds"] == 0


def test_group_and_overall_averages(outputs):
    averages = outputs["averages"]
    assert row(averages, model="big", group="overall")["value"] == pytest.approx((0.81 + 0.64) / 2)
    assert row(averages, model="big", group="ner")["value"] == pytest.approx(0.81)
    small = row(averages, model="small", group="overall")
    assert small["value"] == pytest.approx((0.73 + 0.53) / 2)
    assert (small["n_tasks"], small["n_expected_tasks"]) == (2, 3)
    assert row(averages, model=BASELINE, group="re")["value"] == pytest.approx(0.5)


def test_scores_columns_and_markdown(outputs):
    assert list(outputs["scores"].columns) == [
        "model",
        "task",
        "seed",
        "metric",
        "value",
        "status",
        "subsample",
    ]
    assert len(outputs["scores"].query("status == 'ok'")) == 2 * (5 + 5 + 4 + 4 + 1 + 1)
    markdown = outputs["markdown"]
    assert AVERAGE_FORMULAS["tasks"] in markdown
    assert set(outputs["averages"]["method"]) == {"tasks"}
    assert "0.7300 (4/5)" in markdown and "missing (0/5)" in markdown


def test_complete_grid_has_no_missing_seeds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    for seed, value in enumerate([0.5, 0.7, 0.6], start=1):
        write_metrics(
            Path(PATTERN.format(model="m", task="t-ner", seed=seed)), "m", "t-ner", seed, value
        )
    write_metrics(Path(BASELINE_PATTERN.format(task="t-ner")), BASELINE, "t-ner", None, 0.0)
    aggregate(
        "scores.csv",
        "summary.csv",
        "averages.csv",
        "summary.md",
        models=["m"],
        tasks=["t-ner"],
        seeds=[1, 2, 3],
        metrics_pattern=PATTERN,
        baseline_pattern=BASELINE_PATTERN,
    )
    summary = pd.read_csv("summary.csv", keep_default_na=False)
    f1 = row(summary, model="m", metric="f1")
    assert f1["median"] == pytest.approx(0.6)
    assert f1["missing_seeds"] == ""
    assert (pd.read_csv("scores.csv")["status"] == "ok").all()


@pytest.mark.parametrize(
    "method, overall", [("tasks", (0.6 + 0.8 + 0.3) / 3), ("groups", ((0.6 + 0.8) / 2 + 0.3) / 2)]
)
def test_overall_average_methods(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, method: str, overall: float
):
    monkeypatch.chdir(tmp_path)
    for task, values in {
        "t-ner": [0.5, 0.7, 0.6],
        "t-ner2": [0.8, 0.8, 0.8],
        "t-re": [0.3, 0.3, 0.3],
    }.items():
        for seed, value in enumerate(values, start=1):
            write_metrics(
                Path(PATTERN.format(model="m", task=task, seed=seed)), "m", task, seed, value
            )
    aggregate(
        "scores.csv",
        "summary.csv",
        "averages.csv",
        "summary.md",
        models=["m"],
        tasks=["t-ner", "t-ner2", "t-re"],
        seeds=[1, 2, 3],
        metrics_pattern=PATTERN,
        average=method,
    )
    averages = pd.read_csv("averages.csv")
    assert row(averages, group="ner")["value"] == pytest.approx(0.7)
    assert row(averages, group="overall")["value"] == pytest.approx(overall)
    assert set(averages["method"]) == {method}
    assert AVERAGE_FORMULAS[method] in Path("summary.md").read_text()


def test_unknown_average_method_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="average method 'median'"):
        aggregate(
            "scores.csv",
            "summary.csv",
            "averages.csv",
            "summary.md",
            models=["m"],
            tasks=["t-ner"],
            seeds=[1],
            metrics_pattern=PATTERN,
            average="median",
        )
    assert not Path("averages.csv").exists()


def test_blurb_score_is_the_mean_of_the_six_task_type_means():
    from biocompact.report.aggregation import BLURB, blurb_scores

    medians = {  # task: (BLURB type, median)
        "bc5-chem": ("ner", 0.90),
        "ncbi": ("ner", 0.80),
        "pico": ("pico", 0.70),
        "chemprot": ("relation", 0.75),
        "ddi": ("relation", 0.85),
        "gad": ("relation", 0.80),
        "biosses": ("similarity", 0.90),
        "hoc": ("classification", 0.80),
        "pubmedqa": ("qa", 0.50),
        "bioasq": ("qa", 0.90),
    }
    summary = pd.DataFrame(
        [
            {"model": "m", "task": task, "primary": True, "median": median}
            for task, (_, median) in medians.items()
        ]
        + [{"model": "m", "task": "ncbi", "primary": False, "median": 0.0}]
    )
    types = {task: kind for task, (kind, _) in medians.items()}
    # type means: NER 0.85, PICO 0.70, RE 0.80, similarity 0.90, DC 0.80, QA 0.70 -> 4.75 / 6
    (row,) = blurb_scores(summary, types).to_dict("records")
    assert row["group"] == BLURB and row["value"] == pytest.approx(4.75 / 6)
    assert (row["n_tasks"], row["n_expected_tasks"]) == (10, 10)
    without_pico = {task: kind for task, kind in types.items() if kind != "pico"}
    assert math.isnan(blurb_scores(summary, without_pico)["value"].iloc[0])
    with pytest.raises(ValueError, match="BLURB task types"):
        blurb_scores(summary, {"ncbi": "nli"})
