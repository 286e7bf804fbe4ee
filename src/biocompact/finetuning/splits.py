"""Train/dev/test splits of a task, with the label set learnt from train."""

from __future__ import annotations

from dataclasses import dataclass, field

from sklearn.model_selection import GroupShuffleSplit, train_test_split

from biocompact.finetuning.family import TaskFamily
from biocompact.finetuning.task_labels import check_known_labels, training_labels
from biocompact.taskfiles.settings import FinetuningTask

DEV_FRACTION = 0.1
DEV_SPLIT_SEED = 20240501  # fixed: every run seed sees the same carved dev set


@dataclass(frozen=True)
class Splits:
    """The examples of each split, the training labels (sorted), where dev came from, and
    each split cut by ``max_*_examples``: split -> (examples kept, examples there were)."""

    train: list
    dev: list
    test: list
    labels: list[str]
    dev_source: str
    subsampled: dict[str, tuple[int, int]] = field(default_factory=dict)


def carve_dev(train: list, family: TaskFamily) -> tuple[list, list]:
    """A fixed 10% of ``train`` as dev; whole groups (questions, abstracts) when the family
    groups its examples."""
    groups = [family.group(example) for example in train]
    if all(group is None for group in groups):
        return train_test_split(train, test_size=DEV_FRACTION, random_state=DEV_SPLIT_SEED)
    splitter = GroupShuffleSplit(n_splits=1, test_size=DEV_FRACTION, random_state=DEV_SPLIT_SEED)
    kept, carved = next(splitter.split(train, groups=groups))
    return [train[i] for i in sorted(kept)], [train[i] for i in sorted(carved)]


def evaluation_sample(examples: list, size: int | None, family: TaskFamily) -> list:
    """A fixed random sample of about ``size`` examples, in file order (all when None or
    more than there are); whole groups (abstracts, questions) when the family groups its
    examples. Random, not the first ones: test files are often sorted by label (GAD)."""
    if size is None or size >= len(examples):
        return examples
    groups = [family.group(example) for example in examples]
    if all(group is None for group in groups):
        _, chosen = train_test_split(
            range(len(examples)), test_size=size, random_state=DEV_SPLIT_SEED
        )
    else:
        splitter = GroupShuffleSplit(
            n_splits=1, test_size=size / len(examples), random_state=DEV_SPLIT_SEED
        )
        _, chosen = next(splitter.split(examples, groups=groups))
    return [examples[i] for i in sorted(chosen)]


def load_splits(task: FinetuningTask, family: TaskFamily) -> Splits:
    """Read train (its first ``max_train_examples`` when set), dev and test; without a dev
    file, carve a fixed 10% of train. ``max_dev_examples`` and ``max_test_examples`` keep a
    fixed random sample of dev and test (quick studies); ``subsampled`` records each cut."""
    whole = {"train": family.read_split(task, "train")}
    train = whole["train"][: task.max_train_examples]
    kept = {"train": len(train)}
    if task.dev:
        whole["dev"] = family.read_split(task, "dev")
        dev_source = str(task.dev)
    else:
        train, whole["dev"] = carve_dev(train, family)
        dev_source = f"{DEV_FRACTION:.0%} of train, split with fixed seed {DEV_SPLIT_SEED}"
    whole["test"] = family.read_split(task, "test")
    dev = evaluation_sample(whole["dev"], task.max_dev_examples, family)
    test = evaluation_sample(whole["test"], task.max_test_examples, family)
    kept.update(dev=len(dev), test=len(test))
    labels = training_labels(train)
    check_known_labels(dev, labels)
    check_known_labels(test, labels)
    subsampled = {
        split: (kept[split], len(whole[split]))
        for split in ("train", "dev", "test")
        if kept[split] < len(whole[split])
    }
    return Splits(train, dev, test, labels, dev_source, subsampled)
