"""Check a converted split against its registry entry: every label inside the dataset's
label set, and its size, counted in the dataset's unit, against the published size."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from biocompact.datasets.convert import GOLDEN
from biocompact.datasets.registry import Dataset
from biocompact.records.dataset_counts import CheckedCounts
from biocompact.taskfiles.readers import (
    LabelledText,
    MultiLabelText,
    TaggedSentence,
    normalise_tag,
)


class CheckError(ValueError):
    """A converted split that does not hold what its publisher says it holds."""


def _mentions(examples: Sequence) -> int:
    """Entity mentions: B tags, as LinkBERT's preprocess_blurb.py counts them (line 190)."""
    return sum(tag.startswith("B") for sentence in examples for tag in sentence.tags)


def _tagged_tokens(examples: Sequence) -> int:
    """Tokens with a tag other than O, as LinkBERT counts PICO (preprocess_blurb.py line 247)."""
    return sum(tag != "O" for sentence in examples for tag in sentence.tags)


UNITS: dict[str, Callable[[Sequence], int]] = {
    "mentions": _mentions,
    "tagged tokens": _tagged_tokens,
    "sentences": len,
    "instances": len,
    "snippets": len,
    "questions": len,
    "abstracts": lambda examples: len({example.document for example in examples}),
}


def _labels(example: object) -> Iterable[str]:
    if isinstance(example, TaggedSentence):
        return example.tags
    if isinstance(example, LabelledText):
        return (example.label,)
    if isinstance(example, MultiLabelText):
        return example.labels
    return ()


def check_split(
    dataset: Dataset, split: str, examples: Sequence, fold: str | None
) -> CheckedCounts:
    """The checked counts of one converted split (for the report; the golden answers of a
    QA dataset count questions); raises :class:`CheckError` naming the record or the
    two figures on a mismatch."""
    if dataset.labels is not None:
        allowed = (
            {normalise_tag(label, "registry", 0) for label in dataset.labels}
            if dataset.family == "ner"
            else set(dataset.labels)
        )
        for number, example in enumerate(examples, start=1):
            unknown = sorted(set(_labels(example)) - allowed)
            if unknown:
                raise CheckError(
                    f"split {split}: record {number} (id {getattr(example, 'id', number)!r}, "
                    f"line {example.line} of the converted file) has label(s) {unknown} "
                    f"outside the dataset's label set {list(dataset.labels)}"
                )
    entry = dataset.splits[split]
    unit = "questions" if split == GOLDEN else dataset.unit or "instances"
    converted = UNITS[unit](examples)
    if entry.size is not None and abs(converted - entry.size) > entry.tolerance:
        allowed_gap = f" (tolerance {entry.tolerance})" if entry.tolerance else ""
        raise CheckError(
            f"split {split}: {converted} {unit} converted, but {dataset.sizes_from} "
            f"publishes {entry.size}{allowed_gap}"
        )
    return CheckedCounts(
        dataset=dataset.name,
        split=split,
        fold=fold,
        unit=unit,
        converted=converted,
        published=entry.size,
        tolerance=entry.tolerance,
        sizes_from=dataset.sizes_from,
        note=entry.note,
    )
