"""The dev and test text of the fine-tuning tasks, which decontamination keeps out of the
pretraining text: read with each task family's own readers (light: no torch), and per
format the fields that hold text from the literature and those that hold PMIDs, as each
format declares them (``taskfiles/formats.py``).

What is collected: NER sentences (tokens joined by spaces), relation and classification
sentences (entity masks such as ``@GENE$`` are left to the n-gram step, which never lets
an n-gram span one), both sentences of a pair (NLI, similarity), BioASQ snippets (the
context of each question-snippet entry) and PubMedQA contexts. PMIDs: HoC's index
(``PMID_sN``, or a bare PMID), PubMedQA's ids and, with the task's ``golden`` file, the
documents of each BioASQ question's snippets. Questions are left out: they are written
for the task, not quoted from an abstract.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from biocompact.taskfiles.bioasq import read_bioasq_snippet_documents
from biocompact.taskfiles.folds import fold_tasks
from biocompact.taskfiles.formats import FORMATS
from biocompact.taskfiles.settings import FinetuningTask
from biocompact.taskfiles.task_format import TaskFormat

EVALUATION_SPLITS = ("dev", "test")
_PMID = re.compile(r"(\d+)(?:\.\d+)?")  # a PMID, with or without its version (123.2)


@dataclass(frozen=True)
class EvaluationExample:
    """One unit of a split: its passages of literature text and the PMIDs it comes from."""

    texts: tuple[str, ...]
    pmids: tuple[str, ...] = ()


@dataclass(frozen=True)
class EvaluationSplit:
    """The examples of one task's dev or test split, read from ``files`` (every fold's)."""

    task: str
    split: str
    family: str
    files: tuple[str, ...]
    examples: tuple[EvaluationExample, ...]


def normalise_pmid(value: str) -> str | None:
    """The PMID of ``value`` without its version (``"123.2"`` -> ``"123"``), also from a
    PubMed URL (``.../pubmed/123``); None when it holds none."""
    match = _PMID.fullmatch(value.strip().rstrip("/").rsplit("/", 1)[-1])
    return match.group(1) if match else None


def evaluation_format(task: FinetuningTask) -> TaskFormat:
    """How the files of ``task`` hold their text; an unknown (family, format) is an error."""
    try:
        return FORMATS[(task.family, task.format)]
    except KeyError:
        raise ValueError(
            f"task {task.name!r}: no evaluation text is known for family {task.family!r} "
            f"in format {task.format!r}"
        ) from None


def _example(
    fmt: TaskFormat, item: Any, snippet_documents: Mapping[str, tuple[str, ...]]
) -> EvaluationExample:
    question = fmt.question(item)
    pmids = (*fmt.pmids(item), *snippet_documents.get(question or "", ()))
    normalised = (normalise_pmid(pmid) for pmid in pmids)
    return EvaluationExample(
        tuple(text for text in fmt.texts(item) if text),
        tuple(dict.fromkeys(pmid for pmid in normalised if pmid)),
    )


def split_files(task: FinetuningTask, split: str) -> tuple[str, ...]:
    """The files of ``split`` of ``task``, every fold's, each once (none: no such file)."""
    return tuple(
        dict.fromkeys(
            getattr(settings, split) for _, settings in fold_tasks(task) if getattr(settings, split)
        )
    )


def evaluation_files(task: FinetuningTask) -> list[str]:
    """Every file ``evaluation_splits`` reads: dev and test files, and the golden file."""
    files = [path for split in EVALUATION_SPLITS for path in split_files(task, split)]
    return files + ([task.golden] if task.golden else [])


def evaluation_splits(task: FinetuningTask) -> list[EvaluationSplit]:
    """The dev (when the task has a dev file) and test splits of ``task``, every fold's
    file read once; a dev set carved from train is training text and is not collected."""
    fmt = evaluation_format(task)
    snippet_documents = read_bioasq_snippet_documents(task.golden) if task.golden else {}
    splits = []
    for split in EVALUATION_SPLITS:
        files = split_files(task, split)
        if files:
            examples = tuple(
                _example(fmt, item, snippet_documents)
                for path in files
                for item in fmt.reader(path)
            )
            splits.append(EvaluationSplit(task.name, split, task.family, files, examples))
    return splits
