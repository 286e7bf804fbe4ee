"""The report's section on evaluation text in the training data: the corpus's
``contamination.json`` per task and split, what each compared model's training text is
(and where it is unknown: external checkpoints), and the examples each transfer set of
task distillation dropped for overlapping a test set."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from biocompact.records.contamination import ContaminationRecord
from biocompact.records.transfer_set import TransferSetRecord
from biocompact.report.settings import FinetunedModel
from biocompact.report.tables import DASH, Table, frame_table, number

CONTAMINATION_COLUMNS = {
    "task": "task",
    "split": "split",
    "examples": "examples",
    "examples_unchecked": "examples not checked (under the n-gram length, no PMID)",
    "examples_pmid": "examples with a PMID in the corpus",
    "examples_ngram": "examples sharing an n-gram with the corpus",
    "documents_pmid": "corpus documents matched by PMID",
    "documents_ngram": "corpus documents matched by n-gram",
    "sentences_ngram": "corpus sentences holding a matched n-gram",
    "documents_removed": "corpus documents removed",
}


NOT_RECORDED = (
    "not recorded: this contamination.json predates the count; re-run the corpus stage's "
    "decontamination (rule corpus_evaluation_text and after it) to get it"
)


def contamination_table(contamination: ContaminationRecord) -> Table:
    """Per task and split: its examples that could not be checked (fewer words than the
    n-gram and no PMID: "0 sharing an n-gram" says nothing of them), its examples found in
    the corpus (by PMID, by n-gram), the corpus documents and sentences they matched, and
    the documents removed."""
    rows = [
        {
            "task": split.checked.task,
            "split": split.checked.split,
            "examples": split.checked.examples,
            "examples_unchecked": split.checked.examples_unchecked,
            "examples_pmid": split.pmid.examples,
            "examples_ngram": split.ngram.examples,
            "documents_pmid": split.pmid.documents,
            "documents_ngram": split.ngram.documents,
            "sentences_ngram": split.ngram.sentences,
            "documents_removed": split.documents_removed,
        }
        for split in contamination.splits
    ]
    frame = pd.DataFrame(rows, columns=list(CONTAMINATION_COLUMNS))
    table = frame_table(
        frame, {key: number for key in CONTAMINATION_COLUMNS if key not in ("task", "split")}
    )
    table.columns = list(CONTAMINATION_COLUMNS.values())
    column = list(CONTAMINATION_COLUMNS).index("examples_unchecked")
    for row, split in zip(table.rows, contamination.splits):
        cell = row[column]
        unchecked, examples = split.checked.examples_unchecked, split.checked.examples
        if unchecked is None:
            cell.text, cell.title = DASH, NOT_RECORDED
        else:
            cell.title = (
                f"{unchecked:,} of {examples:,} examples have fewer than "
                f"{contamination.ngram} words and no PMID: nothing could match them, so "
                "the counts beside them cover the other examples only"
            )
            cell.note = (
                f"{unchecked:,} of {examples:,} unchecked"
                if unchecked and unchecked * 2 >= examples
                else ""
            )
    return table


def corpus_statement(contamination: ContaminationRecord | None) -> str:
    """How this run's corpus was checked for evaluation text."""
    if contamination is None:
        return "this run's corpus, not decontaminated"
    totals = contamination.corpus.counts
    return (
        f"this run's corpus, decontaminated ({totals.documents_removed:,} of "
        f"{totals.documents:,} documents removed)"
    )


def training_text_table(
    models: Sequence[FinetunedModel], contamination: ContaminationRecord | None
) -> Table:
    """Each fine-tuned model's training text: this run's corpus (decontaminated or not), or
    unknown for a model not built here, and the external checkpoints whose pretraining text
    it carries, which is unknown."""
    rows = [
        {
            "model": model.name,
            "pretraining text": corpus_statement(contamination)
            if model.built_here
            else "unknown: not built here",
            "text not checked": "; ".join(
                f"{location}: external checkpoint, its pretraining text is unknown"
                for location in model.external_checkpoints
            )
            or "none",
        }
        for model in models
    ]
    return frame_table(
        pd.DataFrame(rows, columns=["model", "pretraining text", "text not checked"])
    )


def transfer_table(records: Sequence[TransferSetRecord]) -> Table:
    """Each transfer set: examples kept, and those dropped for overlapping a test set."""
    rows = [
        {
            "transfer set": record.name,
            "examples": record.examples,
            "dropped": record.dropped,
            "test sets checked": ", ".join(record.checked_test_sets) or "none (check off)",
            "dropped per task": ", ".join(
                f"{task}: {count:,}" for task, count in record.dropped_by_task.items()
            ),
        }
        for record in records
    ]
    columns = ["transfer set", "examples", "dropped", "test sets checked", "dropped per task"]
    return frame_table(pd.DataFrame(rows, columns=columns), {"examples": number, "dropped": number})


def contamination_context(
    contamination: ContaminationRecord | None,
    transfer_records: Sequence[TransferSetRecord],
    finetuned_models: Sequence[FinetunedModel],
) -> dict[str, Any]:
    """The template's names for the section: ``contamination`` (the table, or None when
    the corpus was not decontaminated), its n-gram size and tasks, ``training_text`` and
    ``transfer_overlap`` (None without transfer sets)."""
    return {
        "contamination": contamination_table(contamination) if contamination else None,
        "contamination_ngram": contamination.ngram if contamination else None,
        "contamination_tasks": ", ".join(contamination.tasks) if contamination else "",
        "training_text": training_text_table(finetuned_models, contamination),
        "transfer_overlap": transfer_table(transfer_records) if transfer_records else None,
    }
