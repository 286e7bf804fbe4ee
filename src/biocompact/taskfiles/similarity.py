"""Sentence similarity: JSON lines of sentence pairs (``sentence1``, ``sentence2``, and
``pairID`` optionally) with a numeric ``gold_label``, the score (BIOSSES)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from biocompact.taskfiles.readers import DatasetFormatError, json_lines, non_empty
from biocompact.taskfiles.task_format import TaskFormat


@dataclass(frozen=True)
class ScoredPair:
    """A sentence pair with its gold similarity score."""

    id: str
    text: str
    text_pair: str
    score: float
    source: str
    line: int

    def label_positions(self) -> Iterator[tuple[int, str]]:
        """No class labels: a regression target is never checked against a label set."""
        return iter(())


def read_similarity_jsonl(path: str | Path) -> list[ScoredPair]:
    """Read JSON lines with ``sentence1``, ``sentence2``, a numeric ``gold_label`` and
    optionally ``pairID``."""
    pairs: list[ScoredPair] = []
    for number, record in json_lines(path):
        text, text_pair = record.get("sentence1"), record.get("sentence2")
        score = record.get("gold_label")
        if not (isinstance(text, str) and text and isinstance(text_pair, str) and text_pair):
            raise DatasetFormatError(path, number, "missing or empty sentence1/sentence2")
        if not isinstance(score, (int, float)) or isinstance(score, bool):
            raise DatasetFormatError(path, number, f"gold_label {score!r} is not a number")
        pairs.append(
            ScoredPair(
                str(record.get("pairID", len(pairs))),
                text,
                text_pair,
                float(score),
                str(path),
                number,
            )
        )
    return non_empty(path, pairs)


def _pair(example: ScoredPair) -> tuple[str, ...]:
    return (example.text, example.text_pair)


FORMATS = (
    TaskFormat(
        "similarity_jsonl", ("similarity",), read_similarity_jsonl, ScoredPair, ".jsonl", _pair
    ),
)
