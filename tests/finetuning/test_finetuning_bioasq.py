"""BioASQ factoid scoring: the official measures on hand-built rankings, candidate merging."""

from __future__ import annotations

import pytest
from finetuning_tasks import parsed_task

from biocompact.finetuning.bioasq import answer_rank, merge_candidates
from biocompact.finetuning.metrics import factoid_metrics, score
from biocompact.finetuning.tasks import get_family


def test_ranks_are_case_insensitive_and_over_synonyms():
    assert answer_rank(["BRCA1", "breast cancer 1"], ["tp53", "Breast Cancer 1"]) == 2
    assert answer_rank(["BRCA1"], ["BRCA1 "]) is None  # no trimming, as in the official code
    assert answer_rank(["BRCA1"], []) is None


def test_factoid_measures_by_hand():
    gold = [["a"], ["b", "B2"], ["c"], ["d"]]
    predicted = [["A", "x"], ["x", "y", "b2"], ["x"], []]
    # ranks 1, 3, none, none -> strict 1/4, lenient 2/4, MRR (1 + 1/3) / 4
    assert score(factoid_metrics(), gold, predicted) == pytest.approx(
        {"strict_accuracy": 0.25, "lenient_accuracy": 0.5, "mrr": (1 + 1 / 3) / 4}
    )


def test_candidates_merge_case_insensitively_summing_scores():
    candidates = [("BRCA1", 0.3), ("tp53", 0.4), ("brca1", 0.2), ("  ", 0.9), ("x", 0.1)]
    assert merge_candidates(candidates) == ["BRCA1", "tp53", "x"]  # BRCA1: 0.5
    many = [(f"a{i}", 1.0 / (i + 1)) for i in range(8)]
    assert merge_candidates(many) == ["a0", "a1", "a2", "a3", "a4"]


def test_golden_file_rankings_with_known_ranks(shared_data):
    """Every golden factoid question of the 7b test set answered with its first golden
    synonym (upper-cased) at rank 1..5, or not at all: ranks cycle 1, 2, 3, 4, 5, absent
    over the 162 questions, 27 questions each."""
    folder = shared_data / "qa" / "bioasq"
    task = parsed_task(
        family="qa_factoid",
        format="squad_json",
        test=str(folder / "BioASQ-test-factoid-7b.json"),
        golden=str(folder / "7B_golden.json"),
    )
    qa = get_family("qa_factoid")
    gold = qa.gold(qa.read_split(task, "test"))
    assert len(gold) == 162
    predicted = []
    for k, synonyms in enumerate(gold):
        answers = [f"zz-wrong-{k}-{i}" for i in range(5)]
        rank = k % 6 + 1
        if rank <= 5:
            answers[rank - 1] = synonyms[0].upper()
        predicted.append(answers)
    scores = score(qa.metrics(task, []), gold, predicted)
    assert scores == pytest.approx(
        {
            "strict_accuracy": 27 / 162,
            "lenient_accuracy": 5 * 27 / 162,
            "mrr": 27 * (1 + 1 / 2 + 1 / 3 + 1 / 4 + 1 / 5) / 162,
        }
    )
