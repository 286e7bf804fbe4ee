"""Fine-tuning tasks of tests: a test's task settings parsed into a ``FinetuningTask``."""

from __future__ import annotations

from typing import Any

from biocompact.entries import parse_entry
from biocompact.taskfiles.settings import FinetuningTask

# the required settings a test that does not read them leaves out
PLACEHOLDERS = {
    "name": "t",
    "family": "re",
    "format": "biobert_tsv",
    "train": "train.tsv",
    "test": "test.tsv",
}


def parsed_task(**entry: Any) -> FinetuningTask:
    """``entry`` parsed, ``PLACEHOLDERS`` for the required settings it leaves out."""
    return parse_entry(FinetuningTask, {**PLACEHOLDERS, **entry})
