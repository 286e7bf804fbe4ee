"""Score a sentence splitter against gold sentence boundaries (GENIA Treebank layout).

The gold folder holds one ``{PMID}.txt`` file per abstract: line 1 the title, then one
gold sentence per line. The splitter sees the abstract body joined with single spaces.
"""

from __future__ import annotations

import dataclasses
import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from biocompact.corpus.errors import CorpusFileError


@dataclasses.dataclass(frozen=True)
class SentenceScores:
    """Sentence-level precision/recall/F1 (a sentence counts when its text is exactly right)
    and the share of abstracts whose sentences are all exactly right."""

    abstracts: int
    precision: float
    recall: float
    f1: float
    exact: float


def read_gold_abstracts(folder: str | os.PathLike) -> Iterator[list[str]]:
    """The gold sentences of each abstract in ``folder``, titles left out, in PMID order."""
    paths = sorted(Path(folder).glob("*.txt"))
    if not paths:
        raise CorpusFileError(folder, "no gold sentence files (*.txt)")
    for path in paths:
        lines = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()]
        sentences = [line for line in lines[1:] if line]
        if not sentences:
            raise CorpusFileError(path, "no gold sentence after the title line")
        yield sentences


def score_splitter(
    split: Callable[[list[str]], Iterable[list[str]]], abstracts: Iterable[list[str]]
) -> SentenceScores:
    """Score ``split`` (texts -> sentences of each) on gold abstracts (lists of sentences)."""
    gold = list(abstracts)
    predicted = list(split([" ".join(sentences) for sentences in gold]))
    correct = n_predicted = n_gold = exact = 0
    for truth, guess in zip(gold, predicted, strict=True):
        correct += sum((Counter(truth) & Counter(guess)).values())
        n_predicted += len(guess)
        n_gold += len(truth)
        exact += truth == guess
    precision, recall = correct / n_predicted, correct / n_gold
    return SentenceScores(
        abstracts=len(gold),
        precision=precision,
        recall=recall,
        f1=2 * precision * recall / (precision + recall),
        exact=exact / len(gold),
    )
