"""Each metric's sum form (each family's ``unit_statistic``) equals its ``metrics.py``
definition on the full test set and on resampled units, for every family; predictions files
read back by their family."""

from __future__ import annotations

import random

import numpy as np
import pytest

from biocompact.finetuning import metrics as defined
from biocompact.finetuning.predictions import PredictionsFormatError
from biocompact.finetuning.tasks import get_family
from biocompact.finetuning.unit_statistics import ComparedRuns

RNG = random.Random(11)


def resampled(units: list[str], counts: np.ndarray, gold: list, predicted: list):
    """The items of a resample that draws each unit ``counts`` times; an abstract drawn twice
    is two abstracts (its sentences renamed per draw)."""
    order = list(dict.fromkeys(units))
    items = []
    for unit, times in zip(order, counts):
        for draw in range(times):
            for i in (i for i, u in enumerate(units) if u == unit):
                g = gold[i]
                items.append(
                    ((f"{g[0]}#{draw}", g[1]) if isinstance(g, tuple) else g, predicted[i])
                )
    return [g for g, _ in items], [p for _, p in items]


def assert_sum_form(statistic, metric, units, gold, predicted):
    """The sum form on the full set and on 5 resamples equals the metric on the same items."""
    order, sums = statistic.unit_sums(units, gold, predicted)
    assert float(statistic.value(sums.sum(axis=0))) == pytest.approx(
        metric(gold, predicted), rel=1e-12, abs=1e-12
    )
    weights = np.random.default_rng(0).multinomial(len(order), [1 / len(order)] * len(order), 5)
    values = statistic.value(weights @ sums)
    for counts, value in zip(weights, values):
        expected = metric(*resampled(units, counts, gold, predicted))
        assert value == pytest.approx(expected, rel=1e-12, abs=1e-12)


TAGS = ["O", "B-Disease", "I-Disease", "B-Chemical", "I-Chemical"]


@pytest.mark.parametrize("name", list(defined.ner_metrics(False, TAGS)))
def test_ner_metrics_from_sentence_counts(name):
    gold = [[RNG.choice(TAGS) for _ in range(RNG.randint(1, 10))] for _ in range(60)]
    predicted = [[t if RNG.random() < 0.6 else RNG.choice(TAGS) for t in s] for s in gold]
    metric = defined.ner_metrics(False, TAGS)[name].compute
    statistic = get_family("ner").unit_statistic(name, ComparedRuns(TAGS))
    assert_sum_form(statistic, metric, [str(i) for i in range(60)], gold, predicted)


@pytest.mark.parametrize("name", ["accuracy", "micro_f1", "macro_f1", "binary_f1"])
def test_classification_metrics_from_example_counts(name):
    labels = ["0", "1"] if name == "binary_f1" else ["CPR:3", "CPR:4", "false"]
    gold = [RNG.choice(labels) for _ in range(80)]
    predicted = [g if RNG.random() < 0.6 else RNG.choice(labels) for g in gold]
    metric = defined.classification_metrics(labels, None if name == "binary_f1" else "false")
    negative = None if name == "binary_f1" else "false"
    statistic = get_family("re").unit_statistic(name, ComparedRuns(labels, negative_label=negative))
    assert_sum_form(statistic, metric[name].compute, [str(i) for i in range(80)], gold, predicted)


@pytest.mark.parametrize("name", ["micro_f1", "macro_f1", "abstract_micro_f1"])
def test_multilabel_metrics_resample_abstracts(name):
    labels = ["a", "b", "c", "d"]
    documents = [f"pmid{i // 3}" for i in range(45)]  # 15 abstracts of 3 sentences
    gold = [(doc, frozenset(RNG.sample(labels, RNG.randint(0, 2)))) for doc in documents]
    predicted = [frozenset(RNG.sample(labels, RNG.randint(0, 2))) for _ in documents]
    metric = defined.multilabel_metrics(labels)[name].compute
    statistic = get_family("dc", "hoc_tsv").unit_statistic(name, ComparedRuns(labels))
    assert statistic.merged == (name == "abstract_micro_f1")
    assert_sum_form(statistic, metric, documents, gold, predicted)


@pytest.mark.parametrize("name", ["strict_accuracy", "lenient_accuracy", "mrr"])
def test_factoid_metrics_per_question(name):
    answers = ["egfr", "tp53", "brca1", "kras", "myc", "pten"]
    gold = [RNG.sample(answers, 2) for _ in range(30)]
    predicted = [RNG.sample(answers, 5) for _ in range(30)]
    metric = defined.factoid_metrics()[name].compute
    statistic = get_family("qa_factoid").unit_statistic(name, ComparedRuns([]))
    assert_sum_form(statistic, metric, [f"q{i}" for i in range(30)], gold, predicted)


@pytest.mark.parametrize("name", ["accuracy", "macro_f1", "roc_auc"])
def test_yesno_metrics(name):
    labels = ["no", "yes"]
    gold = [RNG.choice(labels) for _ in range(40)]
    predicted = []
    for _ in gold:
        p = RNG.random()
        predicted.append(defined.ScoredLabel("yes" if p > 0.5 else "no", (1 - p, p)))
    metric = defined.yesno_metrics(labels, "question")[name].compute
    family = get_family("qa_yesno")
    statistic = family.unit_statistic(name, ComparedRuns(labels))
    if name == "roc_auc":  # no sum form: computed on the items
        assert statistic is None
        assert family.item_metric(name, labels)(gold, predicted) == metric(gold, predicted)
    else:
        assert_sum_form(statistic, metric, [f"q{i}" for i in range(40)], gold, predicted)


@pytest.mark.parametrize("name", ["pearson", "mse"])
def test_similarity_metrics_from_moments(name):
    gold = [RNG.uniform(0, 4) for _ in range(25)]
    predicted = [g + RNG.gauss(0, 1) for g in gold]
    metric = defined.similarity_metrics()[name].compute
    statistic = get_family("similarity").unit_statistic(name, ComparedRuns([]))
    assert_sum_form(statistic, metric, [str(i) for i in range(25)], gold, predicted)


def test_pearson_of_a_constant_resample_is_zero_as_defined():
    statistic = get_family("similarity").unit_statistic("pearson", ComparedRuns([]))
    _, sums = statistic.unit_sums(["0", "1", "2"], [1.0, 2.0, 3.0], [1.5, 2.000001, 2.0])
    # Drawing unit 0 three times leaves a constant series: 0, as metrics.py's pearson says.
    assert statistic.value(np.array([3.0, 0, 0]) @ sums) == 0.0
    assert statistic.value(sums.sum(0)) == pytest.approx(
        defined.similarity_metrics()["pearson"].compute([1.0, 2.0, 3.0], [1.5, 2.000001, 2.0])
    )


def test_predictions_files_read_back_per_family_and_fold(tmp_path):
    ner = tmp_path / "ner.tsv"
    ner.write_text("# fold 1\nA\tB-D\tB-D\nb\tO\tI-D\n\nc\tO\tO\n\n# fold 2\nd\tB-D\tO\n\n")
    folds = get_family("ner").read_predictions(ner)
    assert [f.fold for f in folds] == ["1", "2"]
    assert folds[0].gold == [["B-D", "O"], ["O"]] and folds[0].predicted == [["B-D", "I-D"], ["O"]]
    assert folds[0].units == ["0", "1"] and folds[1].units == ["0"]
    hoc = tmp_path / "hoc.tsv"
    hoc.write_text(
        "index\tgold\tpredicted\tdocument\n1_s1\ta,b\tb\t1\n1_s2\t\tc\t1\n2_s1\tc\t\t2\n"
    )
    (fold,) = get_family("dc", "hoc_tsv").read_predictions(hoc)
    assert fold.units == ["1", "1", "2"]
    assert fold.gold[0] == ("1", frozenset({"a", "b"})) and fold.predicted[2] == frozenset()
    yesno = tmp_path / "yesno.tsv"
    yesno.write_text("question\tgold\tpredicted\tprobabilities\nq1\tyes\tno\t[0.6, 0.4]\n")
    (fold,) = get_family("qa_yesno").read_predictions(yesno)
    assert fold.predicted == [defined.ScoredLabel("no", (0.6, 0.4))]
    bad = tmp_path / "bad.tsv"
    bad.write_text("index\tgold\tpredicted\n0\t1\n")
    with pytest.raises(PredictionsFormatError, match=r"bad.tsv:2: expected 3 columns"):
        get_family("re").read_predictions(bad)
