"""A task's label set, read from its own files, and the names a saved model gives its labels
(the task's ``label_names``); checked when the DAG is built and again by the job (light: no
torch).

NER files are read as typed IOB2 (``B`` -> ``B-ENT``, ``readers.typed_tag``), so a name may
be given for a tag as the file writes it (``B``) or as read (``B-ENT``), and a name without
an IOB2 prefix names the entity: ``{B: Chemical, I: Chemical}`` saves ``B-Chemical`` and
``I-Chemical``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from biocompact.taskfiles.folds import fold_tasks
from biocompact.taskfiles.formats import FORMATS
from biocompact.taskfiles.readers import (
    UNTYPED_ENTITY,
    DatasetFormatError,
    hoc_abstracts,
    typed_tag,
)
from biocompact.taskfiles.settings import FinetuningTask


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


def _is_entity_tag(label: str) -> bool:
    return label != "O" and typed_tag(label) == label


def renamed_labels(names: Mapping[str, str] | None, family: str) -> dict[str, str]:
    """Each label of the task's files (as the readers give it) -> its name in a saved model,
    from a task's ``label_names``; NER tags as the file writes them are read as typed tags,
    and an NER name without a ``B-``/``I-`` prefix takes its tag's."""
    if family != "ner":
        return dict(names or {})
    renamed: dict[str, str] = {}
    for tag, name in (names or {}).items():
        label = typed_tag(tag) or tag
        if label in renamed:
            raise ValueError(f"names the tag {label!r} twice (as {tag!r} and another key)")
        prefixed = _is_entity_tag(label) and not _is_entity_tag(name)
        renamed[label] = f"{label.split('-', 1)[0]}-{name}" if prefixed else name
    return renamed


def _as_read(labels: Sequence[str], family: str) -> str:
    """The labels found, saying how untyped NER tags were read."""
    note = (
        f" (untyped B/I read as B-{UNTYPED_ENTITY}/I-{UNTYPED_ENTITY})" if family == "ner" else ""
    )
    return f"{list(labels)}{note}"


def saved_label_names(
    labels: Sequence[str],
    names: Mapping[str, str] | None,
    family: str,
    key: str,
    source: str,
) -> dict[int, str]:
    """``id2label`` of a saved model: each label of the task files (``labels``, read from
    ``source``) under its name in ``names`` (a task's ``label_names`` at config ``key``),
    else as it is. A name of a label the files lack, or two labels given one name, is an
    error naming the key, the file and the labels it holds."""
    try:
        renamed = renamed_labels(names, family)
    except ValueError as error:
        raise ValueError(f"{key} {error}") from None
    unknown = sorted(set(renamed) - set(labels))
    if unknown:
        raise ValueError(
            f"{key} names labels {unknown} that {source} does not have; its labels: "
            f"{_as_read(labels, family)}"
        )
    saved = [renamed.get(label, label) for label in labels]
    if len(set(saved)) != len(saved):
        raise ValueError(f"{key} gives two labels of {source} one name: {dict(zip(labels, saved))}")
    return dict(enumerate(saved))


def task_labels(saved: Sequence[str], names: Mapping[str, str] | None, family: str) -> list[str]:
    """The task files' labels of a saved model's labels ``saved`` (its ``id2label`` in
    order): ``label_names`` undone."""
    original = {name: label for label, name in renamed_labels(names, family).items()}
    return [original.get(name, name) for name in saved]


def check_task_labels(task: FinetuningTask) -> None:
    """The labels of ``task`` as its job will read them, checked against the config before
    any job runs: ``label_names`` (``saved_label_names``), ``negative_label`` and
    ``positive_labels`` name labels of the training file (its first ``max_train_examples``,
    the label set the job learns), and dev and test hold no label that training lacks.
    Files that the DAG has not built yet (a dataset's, under results/) are left to the job;
    formats without ``checked_labels`` (QA, similarity) have nothing to check."""
    fmt = FORMATS.get((task.family, task.format))
    if fmt is None or not fmt.checked_labels:
        return

    def reader(path: str | Path) -> list:
        """The file's examples as the job reads them (HoC: abstracts with ``unit: abstract``,
        so that ``max_train_examples`` counts what the job counts)."""
        examples = fmt.reader(path)
        abstracts = task.format == "hoc_tsv" and task.unit == "abstract"
        return hoc_abstracts(examples) if abstracts else examples

    key = f"config: finetuning.tasks.{task.name}"
    for _, fold in fold_tasks(task):
        if not Path(fold.train).is_file():
            continue
        labels = training_labels(reader(fold.train)[: task.max_train_examples])
        saved_label_names(labels, task.label_names, task.family, f"{key}.label_names", fold.train)
        for setting, named in (
            ("negative_label", [task.negative_label] if task.negative_label else []),
            ("positive_labels", list(task.positive_labels or ())),
        ):
            unknown = sorted(set(named) - set(labels))
            if unknown:
                raise ValueError(
                    f"{key}.{setting}: {unknown} not among the labels of {fold.train}: "
                    f"{_as_read(labels, task.family)}"
                )
        for split in ("dev", "test"):
            path = getattr(fold, split)
            if path and Path(path).is_file():
                try:
                    check_known_labels(reader(path), labels)
                except DatasetFormatError as error:
                    raise ValueError(f"{key}.{split}: {error} (read from {fold.train})") from None
