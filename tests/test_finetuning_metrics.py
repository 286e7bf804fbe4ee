"""Metrics against hand-computed small cases (and their definitions, primary metrics)."""

from __future__ import annotations

import pytest
from seqeval.metrics import f1_score as default_mode_f1

from biocompact.finetuning.metrics import (
    classification_metrics,
    definitions,
    ner_metrics,
    score,
)
from biocompact.finetuning.tasks import get_family

CHEMPROT_LABELS = ["CPR:3", "CPR:4", "false"]
CHEMPROT_GOLD = ["CPR:3", "CPR:3", "CPR:4", "false", "false", "false"]
CHEMPROT_PRED = ["CPR:3", "CPR:4", "CPR:4", "CPR:3", "false", "false"]


def test_ner_entity_level_scores():
    gold = [["B-D", "I-D", "O", "B-D"], ["O", "B-C"]]
    pred = [["B-D", "I-D", "O", "O"], ["O", "B-D"]]
    # gold entities 3, predicted 2, exact matches 1 (D at 0-1; D at 3 missed; C typed D)
    scores = score(ner_metrics(), gold, pred)
    assert scores == pytest.approx({"precision": 1 / 2, "recall": 1 / 3, "f1": 0.4})


def test_ner_is_strict_iob2():
    gold, pred = [["B-D", "I-D", "O"]], [["I-D", "I-D", "O"]]
    assert default_mode_f1(gold, pred) == 1.0  # conlleval mode accepts an entity opened by I-
    assert score(ner_metrics(), gold, pred)["f1"] == 0.0


def test_ner_no_predicted_entities_scores_zero_without_error():
    assert score(ner_metrics(), [["B-D", "O"]], [["O", "O"]]) == {
        "f1": 0.0,
        "precision": 0.0,
        "recall": 0.0,
    }


def test_chemprot_style_micro_f1_excludes_negative_label():
    metrics = classification_metrics(CHEMPROT_LABELS, negative_label="false")
    scores = score(metrics, CHEMPROT_GOLD, CHEMPROT_PRED)
    # positives: predicted 4, gold 3, correct 2 -> P 1/2, R 2/3, F1 4/7
    assert scores["micro_f1"] == pytest.approx(4 / 7)
    assert scores["accuracy"] == pytest.approx(4 / 6)
    # per class F1: CPR:3 1/2, CPR:4 2/3, false 4/5
    assert scores["macro_f1"] == pytest.approx((1 / 2 + 2 / 3 + 4 / 5) / 3)
    assert "binary_f1" not in scores
    assert "'false'" in definitions(metrics)["micro_f1"]


def test_positive_labels_override_and_unknown_labels():
    metrics = classification_metrics(CHEMPROT_LABELS, positive_labels=["CPR:4"])
    # CPR:4: predicted 2, gold 1, correct 1 -> F1 2/3
    assert score(metrics, CHEMPROT_GOLD, CHEMPROT_PRED)["micro_f1"] == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="not training labels"):
        classification_metrics(CHEMPROT_LABELS, negative_label="NONE")


def test_binary_f1_of_positive_class():
    metrics = classification_metrics(["0", "1"])
    scores = score(metrics, ["1", "1", "0", "0", "1"], ["1", "0", "0", "1", "1"])
    assert scores["binary_f1"] == pytest.approx(2 / 3)  # TP 2, FP 1, FN 1
    assert scores["accuracy"] == pytest.approx(3 / 5)
    assert set(definitions(metrics)) == {"accuracy", "macro_f1", "micro_f1", "binary_f1"}


def test_score_rejects_length_mismatch():
    with pytest.raises(ValueError, match="2 gold items but 1 predictions"):
        score(classification_metrics(["0", "1"]), ["0", "1"], ["0"])


def test_primary_metric_defaults_and_validation():
    ner, re = get_family("ner"), get_family("re")
    assert ner.primary_metric({}, ["B-ENT", "I-ENT", "O"]) == "f1"
    assert re.primary_metric({}, ["0", "1"]) == "binary_f1"
    assert re.primary_metric({"negative_label": "false"}, CHEMPROT_LABELS) == "micro_f1"
    assert re.primary_metric({"metric": "macro_f1"}, ["0", "1"]) == "macro_f1"
    with pytest.raises(ValueError, match="metric 'binary_f1' not available"):
        re.primary_metric({"metric": "binary_f1"}, CHEMPROT_LABELS)
    with pytest.raises(ValueError, match="unknown task family 'qa'"):
        get_family("qa")
