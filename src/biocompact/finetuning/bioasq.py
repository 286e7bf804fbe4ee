"""BioASQ's official evaluation of factoid answers.

Factoid scoring follows BioASQ/Evaluation-Measures (``EvaluatorTask1b -phaseB -e 5``):
answers and golden synonyms are lower-cased, then compared for string equality; strict
accuracy counts questions whose first answer is a golden synonym, lenient accuracy those
with a golden synonym anywhere in the (up to 5) answers, MRR averages 1/rank of the first
match (0 without one); the mean is over the questions answered.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Literal, overload

from biocompact.taskfiles.bioasq import GoldenQuestion
from biocompact.taskfiles.readers import DatasetFormatError

TOP_ANSWERS = 5


@overload
def golden_answer(
    golden: Mapping[str, GoldenQuestion], question_id: str, kind: Literal["yesno"], path: str | Path
) -> str: ...
@overload
def golden_answer(
    golden: Mapping[str, GoldenQuestion],
    question_id: str,
    kind: Literal["factoid"],
    path: str | Path,
) -> tuple[str, ...]: ...
def golden_answer(
    golden: Mapping[str, GoldenQuestion], question_id: str, kind: str, path: str | Path
) -> tuple[str, ...] | str:
    """The golden answer of ``question_id``; an error naming ``path`` when it has none."""
    question = golden.get(question_id)
    if question is None or question.type != kind:
        raise DatasetFormatError(path, None, f"no golden {kind} answer for question {question_id}")
    return question.answer


def merge_candidates(candidates: Iterable[tuple[str, float]], top: int = TOP_ANSWERS) -> list[str]:
    """Merge the (answer, score) candidates of all snippets of one question: answers equal
    up to case are one answer whose score is the sum; the ``top`` best, best first (ties
    keep first-seen order; the first-seen spelling is kept)."""
    totals: dict[str, float] = {}
    spelling: dict[str, str] = {}
    for text, score in candidates:
        if not text.strip():
            continue
        key = text.lower()
        totals[key] = totals.get(key, 0.0) + score
        spelling.setdefault(key, text)
    ranked = sorted(totals, key=lambda key: -totals[key])
    return [spelling[key] for key in ranked[:top]]


def answer_rank(synonyms: Sequence[str], answers: Sequence[str]) -> int | None:
    """1-based rank of the first answer equal (lower-cased) to a lower-cased synonym."""
    gold = {synonym.lower() for synonym in synonyms}
    for rank, answer in enumerate(answers, start=1):
        if answer.lower() in gold:
            return rank
    return None


def strict_accuracy(gold: Sequence[Sequence[str]], predicted: Sequence[Sequence[str]]) -> float:
    """Share of questions whose first answer is a golden synonym."""
    return _mean(answer_rank(g, p) == 1 for g, p in zip(gold, predicted))


def lenient_accuracy(gold: Sequence[Sequence[str]], predicted: Sequence[Sequence[str]]) -> float:
    """Share of questions with a golden synonym among their answers."""
    return _mean(answer_rank(g, p) is not None for g, p in zip(gold, predicted))


def mean_reciprocal_rank(
    gold: Sequence[Sequence[str]], predicted: Sequence[Sequence[str]]
) -> float:
    """Mean over questions of 1/rank of the first golden synonym (0 when none matches)."""
    ranks = (answer_rank(g, p) for g, p in zip(gold, predicted))
    return _mean(1.0 / rank if rank else 0.0 for rank in ranks)


def _mean(values: Iterable[float]) -> float:
    values = list(values)
    return sum(values) / len(values) if values else 0.0
