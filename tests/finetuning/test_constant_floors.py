"""The constant floors of a task (``finetuning.baseline.constant_floors``) on hand-made task
files whose scores are known: all-positive binary F1 = 2p / (1 + p), multi-label
all-positive micro-F1 at sentence and abstract level, the most frequent positive class for a
micro-F1 without the negative label; none beyond the majority class for accuracy or NER."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from prediction_scores import scores_from_predictions

from biocompact.entries import parse_entry
from biocompact.finetuning.baseline import constant_floors
from biocompact.records.base import record_data
from biocompact.records.metrics import ALL_POSITIVE, MAJORITY_CLASS
from biocompact.taskfiles.settings import FinetuningTask


def outputs(folder: Path) -> dict[str, str]:
    return {
        "metrics": str(folder / "metrics.json"),
        "predictions": str(folder / "predictions.tsv"),
        "floors": str(folder / "floors"),
    }


def labelled(path: Path, labels: list[str]) -> str:
    """A BioBERT RE file (``sentence<TAB>label``) of one sentence per label."""
    path.write_text(
        "".join(
            f"sentence {i} of @GENE$ and @DISEASE$\t{label}\n" for i, label in enumerate(labels)
        )
    )
    return str(path)


def re_task(folder: Path, train: list[str], test: list[str], **settings) -> dict:
    return {
        "name": "re",
        "family": "re",
        "format": "biobert_tsv",
        "train": labelled(folder / "train.tsv", train),
        "dev": labelled(folder / "dev.tsv", train[:4]),
        "test": labelled(folder / "test.tsv", test),
        **settings,
    }


def floors(entry: dict, folder: Path) -> dict:
    floors = constant_floors(parse_entry(FinetuningTask, entry), outputs=outputs(folder))
    return {floor: record_data(record) for floor, record in floors.items()}


def test_all_positive_binary_f1_is_2p_over_1_plus_p(tmp_path):
    """Test: 3 positives of 10 (p = 0.3). Predicting 1 everywhere: precision 0.3, recall 1,
    F1 = 2 x 0.3 / 1.3 = 6/13; the majority class (0, 6 of the 10 training labels) scores 0."""
    entry = re_task(tmp_path, ["0"] * 6 + ["1"] * 4, ["1"] * 3 + ["0"] * 7)
    records = floors(entry, tmp_path / "out")
    assert list(records) == [MAJORITY_CLASS, ALL_POSITIVE]
    positive, majority = records[ALL_POSITIVE], records[MAJORITY_CLASS]
    assert positive["primary_metric"] == "binary_f1"
    assert positive["metrics"]["binary_f1"] == pytest.approx(2 * 0.3 / 1.3)
    assert positive["metrics"]["accuracy"] == pytest.approx(0.3)
    assert (majority["metrics"]["binary_f1"], majority["metrics"]["accuracy"]) == (0.0, 0.7)
    assert (positive["model"], positive["seed"]) == (ALL_POSITIVE, None)
    # Written in the fine-tuning runs' form beside the majority class, and re-scored the same.
    folder = tmp_path / "out" / "floors" / ALL_POSITIVE
    assert json.loads((folder / "metrics.json").read_text()) == positive
    rescored = scores_from_predictions(folder / "metrics.json", folder / "predictions.tsv", entry)
    assert rescored == pytest.approx(positive["metrics"])
    assert json.loads((tmp_path / "out" / "metrics.json").read_text()) == majority


def test_all_positive_micro_f1_predicts_the_most_frequent_positive_class(tmp_path):
    """ChemProt-like: micro-F1 over CPR:3 and CPR:4, ``false`` excluded. CPR:3 is the most
    frequent positive training class; on the test's 5 false, 3 CPR:3, 2 CPR:4 predicting CPR:3
    everywhere: TP 3, FP 7, FN 2, F1 = 2 x 3 / (10 + 5) = 0.4."""
    train = ["false"] * 6 + ["CPR:3"] * 3 + ["CPR:4"] * 2
    test = ["false"] * 5 + ["CPR:3"] * 3 + ["CPR:4"] * 2
    records = floors(re_task(tmp_path, train, test, negative_label="false"), tmp_path / "out")
    positive = records[ALL_POSITIVE]
    assert positive["primary_metric"] == "micro_f1"
    assert positive["metrics"]["micro_f1"] == pytest.approx(0.4)
    assert records[MAJORITY_CLASS]["metrics"]["micro_f1"] == 0.0
    lines = (tmp_path / "out/floors" / ALL_POSITIVE / "predictions.tsv").read_text().splitlines()
    assert {line.split("\t")[2] for line in lines[1:]} == {"CPR:3"}


def test_accuracy_has_no_floor_beyond_the_majority_class(tmp_path):
    entry = re_task(tmp_path, ["0"] * 6 + ["1"] * 4, ["1"] * 3 + ["0"] * 7, metric="accuracy")
    records = floors(entry, tmp_path / "out")
    assert list(records) == [MAJORITY_CLASS]
    assert (tmp_path / "out/floors").is_dir() and not any((tmp_path / "out/floors").iterdir())


def hoc(path: Path, rows: list[tuple[str, set[str]]]) -> str:
    """A BLUE HoC file: one sentence per (index, positive labels) over labels A, B, C."""
    lines = ["labels\tsentence\tindex"]
    for index, positive in rows:
        flags = ",".join(f"{label}_{int(label in positive)}" for label in "ABC")
        lines.append(f"{flags}\tsentence {index}\t{index}")
    path.write_text("\n".join(lines) + "\n")
    return str(path)


@pytest.mark.parametrize(("unit", "micro_f1"), [("sentence", 1 / 3), ("abstract", 2 / 3)])
def test_multi_label_all_positive_micro_f1_by_sentence_and_by_abstract(tmp_path, unit, micro_f1):
    """Test: abstract x (sentences {A}, {}), abstract y ({B}, {C}, {}). Every label for every
    sentence (``unit: sentence``): 15 predicted, 3 gold, all found: sentence micro-F1 =
    2 x 0.2 x 1 / 1.2 = 1/3; by abstract x {A}, y {B, C}, predicted {A, B, C} each: 6
    predicted, 3 gold, F1 = 2/3, which is also the micro-F1 where the examples are the
    abstracts (``unit: abstract``). No label is positive in more than half of the training
    sentences or abstracts: the majority class predicts none and scores 0."""
    train = [("d1_s1", {"A"}), ("d1_s2", {"B"}), ("d2_s1", {"C"}), ("d2_s2", set())]
    test = [("x_s1", {"A"}), ("x_s2", set()), ("y_s1", {"B"}), ("y_s2", {"C"}), ("y_s3", set())]
    entry = {
        "name": "hoc",
        "family": "dc",
        "format": "hoc_tsv",
        "unit": unit,
        "train": hoc(tmp_path / "train.tsv", train),
        "dev": hoc(tmp_path / "dev.tsv", train),
        "test": hoc(tmp_path / "test.tsv", test),
    }
    records = floors(entry, tmp_path / "out")
    positive = records[ALL_POSITIVE]["metrics"]
    assert positive["micro_f1"] == pytest.approx(micro_f1)
    assert positive["abstract_micro_f1"] == pytest.approx(2 / 3)
    assert records[MAJORITY_CLASS]["metrics"]["abstract_micro_f1"] == 0.0
    folder = tmp_path / "out/floors" / ALL_POSITIVE
    rescored = scores_from_predictions(folder / "metrics.json", folder / "predictions.tsv", entry)
    assert rescored == pytest.approx(positive)


def test_ner_has_the_majority_class_alone(tmp_path):
    conll = "Aspirin\tB-Chemical\nhelps\tO\n\nNothing\tO\nhere\tO\n"
    for split in ("train", "dev", "test"):
        (tmp_path / f"{split}.tsv").write_text(conll)
    entry = {
        "name": "ner",
        "family": "ner",
        "format": "biobert_tsv",
        **{split: str(tmp_path / f"{split}.tsv") for split in ("train", "dev", "test")},
    }
    records = floors(entry, tmp_path / "out")
    assert list(records) == [MAJORITY_CLASS] and records[MAJORITY_CLASS]["metrics"]["f1"] == 0.0
