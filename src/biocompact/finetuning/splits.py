"""Train/dev/test splits of a task, with the label set learnt from train."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sklearn.model_selection import train_test_split

from biocompact.finetuning.family import TaskFamily
from biocompact.finetuning.readers import DatasetFormatError

DEV_FRACTION = 0.1
DEV_SPLIT_SEED = 20240501  # fixed: every run seed sees the same carved dev set


@dataclass(frozen=True)
class Splits:
    """The examples of each split, the training labels (sorted) and where dev came from."""

    train: list
    dev: list
    test: list
    labels: list[str]
    dev_source: str


def training_labels(examples: Sequence) -> list[str]:
    """Sorted set of gold labels in ``examples``."""
    return sorted({label for example in examples for _, label in example.label_positions()})


def check_known_labels(examples: Sequence, labels: Sequence[str]) -> None:
    """Raise naming file and line for the first gold label never seen in training."""
    known = set(labels)
    for example in examples:
        for line, label in example.label_positions():
            if label not in known:
                raise DatasetFormatError(
                    example.source, line, f"label {label!r} never seen in training {sorted(known)}"
                )


def load_splits(task: Mapping, family: TaskFamily) -> Splits:
    """Read train, dev and test; without a dev file, carve a fixed 10% of train."""
    fmt = task["format"]
    train = family.read(task["train"], fmt)
    if task.get("dev"):
        dev = family.read(task["dev"], fmt)
        dev_source = str(task["dev"])
    else:
        train, dev = train_test_split(train, test_size=DEV_FRACTION, random_state=DEV_SPLIT_SEED)
        dev_source = f"{DEV_FRACTION:.0%} of train, split with fixed seed {DEV_SPLIT_SEED}"
    test = family.read(task["test"], fmt)
    labels = training_labels(train)
    check_known_labels(dev, labels)
    check_known_labels(test, labels)
    return Splits(train, dev, test, labels, dev_source)
