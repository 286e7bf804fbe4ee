"""The task file formats, each declared once (``TASK_FORMATS``): its reader and the example
it reads, the task families that read it, the suffix of a prepared dataset's file, how its
labels are checked and whether transfer sets may be read from it, and the evaluation text of
an example of it. Every table of formats (the families' readers, the dataset preparation's,
the label checks', the transfer sets') is derived from it here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from biocompact.taskfiles.bioasq import (
    Snippet,
    read_pubmedqa_json,
    read_squad_json,
    read_yesno_json,
)
from biocompact.taskfiles.readers import (
    LabelledText,
    MultiLabelText,
    ScoredPair,
    TaggedSentence,
    read_hoc_tsv,
    read_ner_biobert_tsv,
    read_ner_conll,
    read_nli_jsonl,
    read_re_biobert_tsv,
    read_re_blue_tsv,
    read_similarity_jsonl,
)


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


def _tokens(example: TaggedSentence) -> tuple[str, ...]:
    return (" ".join(example.tokens),)


def _sentence(example: LabelledText | MultiLabelText) -> tuple[str, ...]:
    return (example.text,)


def _pair(example: LabelledText | ScoredPair) -> tuple[str, ...]:
    return (example.text, example.text_pair or "")


def _document(example: MultiLabelText) -> tuple[str, ...]:
    return (example.document,)


def _context(example: Snippet) -> tuple[str, ...]:
    return (example.context,)


def _question_id(example: Snippet) -> str:
    return example.question_id


def _snippet(example: LabelledText) -> tuple[str, ...]:
    return (example.text_pair or "",)


def _group(example: LabelledText) -> str | None:
    return example.group


def _pmid(example: LabelledText) -> tuple[str, ...]:
    return (example.id,)


# every format, in the order of the schema's enum, which its messages quote; a BioASQ
# question's snippets' documents come from the task's golden file, by question id
TASK_FORMATS = (
    TaskFormat(
        "biobert_tsv",
        ("ner",),
        read_ner_biobert_tsv,
        TaggedSentence,
        ".tsv",
        _tokens,
        checked_labels=True,
    ),
    TaskFormat(
        "conll", ("ner",), read_ner_conll, TaggedSentence, ".tsv", _tokens, checked_labels=True
    ),
    TaskFormat(
        "biobert_tsv",
        ("re", "dc"),
        read_re_biobert_tsv,
        LabelledText,
        ".tsv",
        _sentence,
        checked_labels=True,
        transfer=True,
    ),
    TaskFormat(
        "blue_tsv",
        ("re", "dc"),
        read_re_blue_tsv,
        LabelledText,
        ".tsv",
        _sentence,
        checked_labels=True,
        transfer=True,
    ),
    TaskFormat(
        "hoc_tsv",
        ("dc",),
        read_hoc_tsv,
        MultiLabelText,
        ".tsv",
        _sentence,
        pmids=_document,
        checked_labels=True,
    ),
    TaskFormat(
        "mednli_jsonl",
        ("nli",),
        read_nli_jsonl,
        LabelledText,
        ".jsonl",
        _pair,
        checked_labels=True,
        transfer=True,
    ),
    TaskFormat(
        "squad_json",
        ("qa_factoid",),
        read_squad_json,
        Snippet,
        ".json",
        _context,
        question=_question_id,
    ),
    TaskFormat(
        "bioasq_yesno_json",
        ("qa_yesno",),
        read_yesno_json,
        LabelledText,
        ".json",
        _snippet,
        question=_group,
        transfer=True,
    ),
    TaskFormat(
        "pubmedqa_json",
        ("qa_yesno",),
        read_pubmedqa_json,
        LabelledText,
        ".json",
        _snippet,
        pmids=_pmid,
        transfer=True,
    ),
    TaskFormat(
        "similarity_jsonl", ("similarity",), read_similarity_jsonl, ScoredPair, ".jsonl", _pair
    ),
)

# each (family, format) of the harness
FORMATS: dict[tuple[str, str], TaskFormat] = {
    (family, fmt.name): fmt for fmt in TASK_FORMATS for family in fmt.families
}
# the formats transfer sets may be read from, by name
TRANSFER_FORMATS: dict[str, TaskFormat] = {fmt.name: fmt for fmt in TASK_FORMATS if fmt.transfer}
# a prepared dataset file's suffix, by format
SUFFIXES: dict[str, str] = {fmt.name: fmt.suffix for fmt in TASK_FORMATS}


def family_readers(family: str, example: type) -> dict[str, Callable[[str | Path], list]]:
    """The readers, by format, of the formats of ``family`` whose examples are ``example``s
    (those that one implementation of the family reads)."""
    return {
        fmt.name: fmt.reader
        for fmt in TASK_FORMATS
        if family in fmt.families and fmt.example is example
    }
