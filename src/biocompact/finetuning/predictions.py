"""Fine-tuning predictions files read back: each family's ``write_predictions`` form
(docs/outputs.md), the gold and predicted values of every test item in the form the family's
metrics take, with the unit a bootstrap resamples (a sentence for NER, an abstract for
multi-label classification, a question for question answering, else an example). A family
names the reader of its rows as its ``prediction_rows``.

Torch-free, so that the report stage's comparisons read predictions without the training
stack."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from biocompact.finetuning.metrics import ScoredLabel

FOLD_MARK = "# fold "


class PredictionsFormatError(ValueError):
    """A predictions file that does not hold its family's rows; names the file and line."""

    def __init__(self, path: str | Path, line: int, message: str) -> None:
        super().__init__(f"{path}:{line}: {message}")


@dataclass
class FoldPredictions:
    """The test items of one fold (``fold`` None: a task without folds), in file order."""

    fold: str | None
    units: list[str] = field(default_factory=list)  # each item's resampling unit
    gold: list = field(default_factory=list)
    predicted: list = field(default_factory=list)


def _fold_sections(path: Path) -> Iterator[tuple[str | None, list[tuple[int, str]]]]:
    """(fold, numbered lines) of each ``# fold NAME`` section; one section without folds."""
    fold: str | None = None
    lines: list[tuple[int, str]] = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            line = line.rstrip("\n")
            if line.startswith(FOLD_MARK):
                if lines or fold is not None:
                    yield fold, lines
                fold, lines = line[len(FOLD_MARK) :], []
            else:
                lines.append((number, line))
    yield fold, lines


FoldReader = Callable[[Path, FoldPredictions, list[tuple[int, str]]], None]
"""Adds the items of one fold's numbered lines (blank ones too) to its ``FoldPredictions``."""


def tagged_rows(path: Path, fold: FoldPredictions, lines: list[tuple[int, str]]) -> None:
    """``token<TAB>gold<TAB>predicted`` rows, a blank line after each sentence (NER): one
    item, and unit, a sentence."""
    gold: list[str] = []
    predicted: list[str] = []
    for number, line in [*lines, (0, "")]:
        if not line:
            if gold:
                fold.units.append(str(len(fold.units)))
                fold.gold.append(gold)
                fold.predicted.append(predicted)
            gold, predicted = [], []
            continue
        cells = line.split("\t")
        if len(cells) != 3:
            raise PredictionsFormatError(path, number, "expected token, gold and predicted tags")
        gold.append(cells[1])
        predicted.append(cells[2])


def _table_rows(
    path: Path, lines: list[tuple[int, str]], header: tuple[str, ...]
) -> Iterator[tuple[int, list[str]]]:
    """The rows of a tab-separated section after its ``header`` line (blank lines skipped)."""
    lines = [(number, line) for number, line in lines if line]
    if not lines or tuple(lines[0][1].split("\t")) != header:
        number = lines[0][0] if lines else 1
        raise PredictionsFormatError(path, number, f"expected the header {'<TAB>'.join(header)}")
    for number, line in lines[1:]:
        cells = line.split("\t")
        if len(cells) != len(header):
            raise PredictionsFormatError(path, number, f"expected {len(header)} columns")
        yield number, cells


def _labels(cell: str) -> frozenset[str]:
    return frozenset(cell.split(",")) - {""}


def answer_rows(path: Path, fold: FoldPredictions, lines: list[tuple[int, str]]) -> None:
    """``question<TAB>gold<TAB>predicted`` rows of JSON answer lists (factoid questions)."""
    for _, (question, gold, predicted) in _table_rows(
        path, lines, ("question", "gold", "predicted")
    ):
        fold.units.append(question)
        fold.gold.append(json.loads(gold))
        fold.predicted.append(json.loads(predicted))


def scored_label_rows(path: Path, fold: FoldPredictions, lines: list[tuple[int, str]]) -> None:
    """``question<TAB>gold<TAB>predicted<TAB>probabilities`` rows (yes/no questions)."""
    header = ("question", "gold", "predicted", "probabilities")
    for _, (question, gold, predicted, probabilities) in _table_rows(path, lines, header):
        fold.units.append(question)
        fold.gold.append(gold)
        fold.predicted.append(ScoredLabel(predicted, tuple(json.loads(probabilities))))


def label_set_rows(path: Path, fold: FoldPredictions, lines: list[tuple[int, str]]) -> None:
    """``index<TAB>gold<TAB>predicted<TAB>document`` rows of comma-separated label sets
    (multi-label classification): the unit is the document."""
    header = ("index", "gold", "predicted", "document")
    for _, (_, gold, predicted, document) in _table_rows(path, lines, header):
        fold.units.append(document)
        fold.gold.append((document, _labels(gold)))
        fold.predicted.append(_labels(predicted))


def label_rows(path: Path, fold: FoldPredictions, lines: list[tuple[int, str]]) -> None:
    """``index<TAB>gold<TAB>predicted`` rows of labels (single-label classification)."""
    for _, (_, gold, predicted) in _table_rows(path, lines, ("index", "gold", "predicted")):
        fold.units.append(str(len(fold.units)))
        fold.gold.append(gold)
        fold.predicted.append(predicted)


def score_rows(path: Path, fold: FoldPredictions, lines: list[tuple[int, str]]) -> None:
    """``index<TAB>gold<TAB>predicted`` rows of numbers (sentence similarity)."""
    for number, (_, gold, predicted) in _table_rows(path, lines, ("index", "gold", "predicted")):
        fold.units.append(str(len(fold.units)))
        try:
            fold.gold.append(float(gold))
            fold.predicted.append(float(predicted))
        except ValueError:
            raise PredictionsFormatError(path, number, "scores must be numbers") from None


def read_predictions(path: str | Path, read_fold: FoldReader) -> list[FoldPredictions]:
    """Every fold of a predictions file, each fold's lines read by ``read_fold`` (the
    family's: ``TaskFamily.read_predictions``), with at least one item each."""
    path = Path(path)
    folds = []
    for name, lines in _fold_sections(path):
        fold = FoldPredictions(name)
        read_fold(path, fold, lines)
        if not fold.units:
            where = f"fold {name}" if name is not None else "the file"
            raise PredictionsFormatError(path, lines[-1][0] if lines else 1, f"{where} is empty")
        folds.append(fold)
    return folds
