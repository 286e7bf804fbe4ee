"""The primary NER metric against conlleval itself (the PyPI port of conlleval.pl) on a
predictions file with ill-formed tag sequences."""

from __future__ import annotations

import random

import pytest

from biocompact.finetuning.metrics import ner_metrics, score
from biocompact.finetuning.token_classification import TokenClassification
from biocompact.taskfiles.readers import read_ner_biobert_tsv

conlleval = pytest.importorskip("conlleval")


def _model_like_errors(tags: list[str], rng: random.Random) -> list[str]:
    """Deterministic prediction errors of the kinds a tagger makes: a B- read as I- (an
    entity opened by I- after O), stray I- and B- tags, missed entity words."""
    predicted = []
    for tag in tags:
        draw = rng.random()
        if tag.startswith("B-") and draw < 0.08:
            tag = "I-" + tag[2:]
        elif tag != "O" and draw < 0.05:
            tag = "O"
        elif tag == "O" and draw < 0.01:
            tag = "I-ENT"
        elif tag == "O" and draw < 0.015:
            tag = "B-ENT"
        predicted.append(tag)
    return predicted


def test_conlleval_f1_matches_conlleval_on_ncbi_disease_predictions(shared_data, tmp_path):
    examples = read_ner_biobert_tsv(shared_data / "ner/NCBI-disease/test.tsv")
    rng = random.Random(15)
    predicted = [_model_like_errors(sentence.tags, rng) for sentence in examples]
    predictions = tmp_path / "predictions.tsv"
    with open(predictions, "w", encoding="utf-8") as handle:
        TokenClassification().write_predictions(handle, examples, predicted)
    ill_formed = sum(
        tag.startswith("I-") and (i == 0 or tags[i - 1] == "O")
        for tags in predicted
        for i, tag in enumerate(tags)
    )
    assert ill_formed > 50

    with open(predictions, encoding="utf-8") as handle:
        reference = conlleval.evaluate(handle)["overall"]["chunks"]["evals"]
    ours = score(ner_metrics(), [sentence.tags for sentence in examples], predicted)
    assert ours["f1"] == pytest.approx(reference["f1"], abs=1e-12)
    assert ours["precision"] == pytest.approx(reference["prec"], abs=1e-12)
    assert ours["recall"] == pytest.approx(reference["rec"], abs=1e-12)
    assert ours["strict_f1"] != pytest.approx(ours["f1"], abs=1e-3)
