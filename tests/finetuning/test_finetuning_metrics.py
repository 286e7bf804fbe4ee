"""Metrics against hand-computed small cases (and their definitions, primary metrics)."""

from __future__ import annotations

import pytest
from finetuning_tasks import parsed_task

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
    # gold entities 3, predicted 2, exact matches 1 (D at 0-1; D at 3 missed; C typed D);
    # every tag sequence is well formed, so both definitions agree
    scores = score(ner_metrics(), gold, pred)
    expected = {"precision": 1 / 2, "recall": 1 / 3, "f1": 0.4}
    assert scores == pytest.approx(expected | {f"strict_{k}": v for k, v in expected.items()})


def test_ner_primary_is_conlleval_and_strict_is_labelled():
    gold = [["B-D", "I-D", "O", "O", "B-D"]]
    pred = [["I-D", "I-D", "O", "I-D", "B-D"]]
    # conlleval: predicted D 0-1 (opened by I-), D 3 (opened by I- after O), D 4: 3 found,
    # 2 correct (0-1, 4) of 2 gold -> P 2/3, R 1, F1 0.8. Strict IOB2 drops the two
    # ill-formed entities: 1 found, 1 correct -> P 1, R 1/2, F1 2/3.
    scores = score(ner_metrics(), gold, pred)
    assert scores == pytest.approx(
        {
            "precision": 2 / 3,
            "recall": 1.0,
            "f1": 0.8,
            "strict_precision": 1.0,
            "strict_recall": 1 / 2,
            "strict_f1": 2 / 3,
        }
    )
    definitions_ = definitions(ner_metrics())
    assert "conlleval" in definitions_["f1"] and "strict IOB2" in definitions_["strict_f1"]
    assert get_family("ner").default_metric == "f1"


def test_ner_type_change_inside_entity_starts_a_new_one():
    # conlleval: I-C after I-D ends D and opens C, so D 0-1 and C 2 are two entities
    gold, pred = [["B-D", "I-D", "B-C"]], [["B-D", "I-D", "I-C"]]
    assert score(ner_metrics(), gold, pred)["f1"] == 1.0
    assert score(ner_metrics(), gold, pred)["strict_f1"] == pytest.approx(2 / 3)


def test_ner_no_predicted_entities_scores_zero_without_error():
    scores = score(ner_metrics(), [["B-D", "O"]], [["O", "O"]])
    assert scores == {name: 0.0 for name in ner_metrics()}


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
    assert ner.primary_metric(parsed_task(), ["B-ENT", "I-ENT", "O"]) == "f1"
    assert re.primary_metric(parsed_task(), ["0", "1"]) == "binary_f1"
    assert re.primary_metric(parsed_task(negative_label="false"), CHEMPROT_LABELS) == "micro_f1"
    assert re.primary_metric(parsed_task(metric="macro_f1"), ["0", "1"]) == "macro_f1"
    with pytest.raises(ValueError, match="metric 'binary_f1' not available"):
        re.primary_metric(parsed_task(metric="binary_f1"), CHEMPROT_LABELS)
    with pytest.raises(ValueError, match="unknown task family 'qa'"):
        get_family("qa")


def test_yesno_metrics_by_hand_and_against_scikit_learn():
    from sklearn.metrics import roc_auc_score

    from biocompact.finetuning.metrics import ScoredLabel, yesno_metrics

    gold = ["yes", "yes", "no", "yes", "no"]
    p_yes = [0.9, 0.4, 0.3, 0.8, 0.6]
    predicted = [ScoredLabel("yes" if p > 0.5 else "no", (1 - p, p)) for p in p_yes]
    scores = score(yesno_metrics(["no", "yes"], "question"), gold, predicted)
    # predicted yes, no, no, yes, yes: correct 3/5; F1 yes 2/3 (TP 2, FP 1, FN 1), F1 no 1/2
    # AUC: pairs (yes, no) ranked right: 0.9>0.3, 0.9>0.6, 0.4>0.3, 0.8>0.3, 0.8>0.6 -> 5 of 6
    assert scores == pytest.approx(
        {"accuracy": 0.6, "macro_f1": (2 / 3 + 1 / 2) / 2, "roc_auc": 5 / 6}
    )
    assert scores["roc_auc"] == pytest.approx(roc_auc_score([g == "yes" for g in gold], p_yes))
    single = score(yesno_metrics(["no", "yes"], "q"), ["yes"], [ScoredLabel("no", (0.6, 0.4))])
    assert single == {"accuracy": 0.0, "macro_f1": 0.0, "roc_auc": 0.5}


def test_multilabel_sentence_and_abstract_level():
    from sklearn.metrics import f1_score as sklearn_f1
    from sklearn.preprocessing import MultiLabelBinarizer

    from biocompact.finetuning.metrics import multilabel_metrics

    labels = ["0", "1", "2"]
    gold = [("d1", frozenset({"0"})), ("d1", frozenset()), ("d2", frozenset({"1", "2"}))]
    predicted = [frozenset(), frozenset({"0"}), frozenset({"1"})]
    scores = score(multilabel_metrics(labels), gold, predicted)
    # sentences: TP 1 (d2 "1"), FP 1 (d1 s1 "0"), FN 2 ("0" of s0, "2") -> micro F1 2/5
    # per label F1: "0" 0, "1" 1, "2" 0 -> macro 1/3
    # abstracts: d1 gold {0} pred {0}; d2 gold {1,2} pred {1}: TP 2, FN 1 -> F1 4/5
    assert scores == pytest.approx({"micro_f1": 0.4, "macro_f1": 1 / 3, "abstract_micro_f1": 0.8})
    binarise = MultiLabelBinarizer(classes=labels).fit_transform
    expected = sklearn_f1(binarise([g for _, g in gold]), binarise(predicted), average="micro")
    assert scores["micro_f1"] == pytest.approx(expected)


def test_classification_metrics_agree_with_scikit_learn_on_chemprot_style_labels():
    from sklearn.metrics import f1_score as sklearn_f1

    metrics = classification_metrics(CHEMPROT_LABELS, negative_label="false")
    scores = score(metrics, CHEMPROT_GOLD, CHEMPROT_PRED)
    positives = ["CPR:3", "CPR:4"]
    assert scores["micro_f1"] == sklearn_f1(
        CHEMPROT_GOLD, CHEMPROT_PRED, labels=positives, average="micro"
    )


def test_families_by_format():
    assert get_family("dc", "hoc_tsv").default_metric == "abstract_micro_f1"
    assert get_family("dc", "blue_tsv").name == "dc"
    assert get_family("nli").primary_metric(parsed_task(), ["0", "1"]) == "accuracy"
    assert get_family("qa_factoid").primary_metric(parsed_task(), []) == "mrr"
    with pytest.raises(ValueError, match="unknown dc format 'conll'"):
        get_family("dc", "conll")


def test_pico_word_level_macro_f1():
    from biocompact.finetuning.metrics import word_macro_f1

    gold = [["B-P", "I-P", "O", "B-I"], ["I-O", "O"]]
    pred = [["I-P", "O", "O", "B-P"], ["I-O", "I-O"]]
    # words: P gold 2, predicted 2, both 1 -> F1 1/2; I gold 1, predicted 0 -> 0;
    # O(utcome) gold 1, predicted 2, both 1 -> 2/3; macro (1/2 + 0 + 2/3) / 3
    assert word_macro_f1(["I", "O", "P"])(gold, pred) == pytest.approx((1 / 2 + 2 / 3) / 3)
    metrics = ner_metrics(labels=["B-P", "I-I", "I-O", "I-P", "O"])
    assert "['I', 'O', 'P']" in definitions(metrics)["word_macro_f1"]
    assert score(metrics, gold, pred)["word_macro_f1"] == pytest.approx((1 / 2 + 2 / 3) / 3)


def test_similarity_pearson_spearman_and_mse():
    from biocompact.finetuning.sentence_similarity import similarity_metrics

    # deviations from the mean 2.5: gold (-1.5, -.5, .5, 1.5), predicted (-1.5, .5, -.5, 1.5):
    # covariance sum 4, squared sums 5 and 5 -> r = 0.8; ranks alike -> Spearman 0.8
    scores = score(similarity_metrics(), [1.0, 2.0, 3.0, 4.0], [1.0, 3.0, 2.0, 4.0])
    assert scores == pytest.approx({"pearson": 0.8, "spearman": 0.8, "mse": 0.5})
    assert score(similarity_metrics(), [1.0, 2.0], [3.0, 3.0])["pearson"] == 0.0
