"""What a task file format declares (``TaskFormat``): each module of readers declares its
formats beside its readers (its ``FORMATS``), and ``formats.py`` derives every table of
formats from those declarations."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def _no_pmids(example: object) -> tuple[str, ...]:
    return ()


def _no_question(example: object) -> str | None:
    return None


@dataclass(frozen=True)
class TaskFormat:
    """A task file format as the config names it, read by ``reader`` into ``example``s (the
    family implementation of a name that reads them, ``finetuning/tasks.py``) for the task
    ``families``; a registry dataset's prepared file of it ends in ``suffix``.

    ``checked_labels``: the labels a task's settings name are checked against its files'
    when the DAG is built (``finetuning/task_labels.py``); ``transfer``: a transfer set may be
    read from it with its labels (task distillation). What decontamination looks for in an
    example: its passages of literature text, the PMIDs it comes from, and its BioASQ
    question id (whose snippets' documents the golden file gives). Questions are not
    literature text: they are written for the task, not quoted from an abstract."""

    name: str
    families: tuple[str, ...]
    reader: Callable[[str | Path], list]
    example: type
    suffix: str
    texts: Callable[[Any], tuple[str, ...]]
    pmids: Callable[[Any], tuple[str, ...]] = _no_pmids
    question: Callable[[Any], str | None] = _no_question
    checked_labels: bool = False
    transfer: bool = False
