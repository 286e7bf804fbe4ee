"""``results/task_distillation/transfer/{transfer}.json``: the record of a transfer set,
written by its job (``task_distillation.rules.transfer_set``, from
``task_distillation.transfer.build_transfer_set``) and read by the report
(docs/outputs.md)."""

from __future__ import annotations

from dataclasses import dataclass

from biocompact.records.base import RecordFile


@dataclass(frozen=True, kw_only=True)
class TransferSetRecord(RecordFile):
    """A transfer set's examples written, the tasks whose test sets it was checked against
    (empty with the check off) and the n-gram size of that check (None: unchecked), and the
    examples dropped for overlapping a test set, in all and per task (an example may
    overlap the test sets of several tasks)."""

    FILE = "transfer set record (transfer/{transfer}.json)"
    RECORD = "transfer set record"

    name: str
    examples: int
    checked_test_sets: list[str]
    ngram: int | None
    dropped: int
    dropped_by_task: dict[str, int]  # task -> examples dropped, tasks in name order
