"""``results/task_distillation/transfer/{transfer}.json``: the record of a transfer set,
written by its job (``task_distillation.rules.transfer_set``, from
``task_distillation.transfer.build_transfer_set``) and read by the report
(docs/outputs.md)."""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass

from biocompact.entries import parse_record
from biocompact.records.base import read_record


@dataclass(frozen=True, kw_only=True)
class TransferSetRecord:
    """A transfer set's examples written, the tasks whose test sets it was checked against
    (empty with the check off) and the n-gram size of that check (None: unchecked), and the
    examples dropped for overlapping a test set, in all and per task (an example may
    overlap the test sets of several tasks)."""

    RECORD = "transfer set record"

    name: str
    examples: int
    checked_test_sets: list[str]
    ngram: int | None
    dropped: int
    dropped_by_task: dict[str, int]  # task -> examples dropped, tasks in name order

    @classmethod
    def read(cls, path: str | os.PathLike) -> TransferSetRecord:
        """The record in ``path``; a malformed one raises a ValueError naming the file."""
        return read_record(
            path,
            functools.partial(parse_record, cls),
            "transfer set record (transfer/{transfer}.json)",
        )
