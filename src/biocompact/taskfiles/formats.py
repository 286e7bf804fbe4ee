"""Every task file format (``TASK_FORMATS``), as the modules of readers declare them beside
their readers (``readers.py``, ``bioasq.py``, ``similarity.py``: each one's ``FORMATS``), and
every table of formats derived from them: the families' readers, the dataset preparation's,
the label checks', the transfer sets', the prepared files' suffixes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from biocompact.taskfiles import bioasq, readers, similarity
from biocompact.taskfiles.task_format import TaskFormat

# every format, in the order of the schema's enum, which its messages quote
TASK_FORMATS: tuple[TaskFormat, ...] = readers.FORMATS + bioasq.FORMATS + similarity.FORMATS

# every task family a format declares, in the order of its first format (the schema's enum)
FAMILY_NAMES: tuple[str, ...] = tuple(
    dict.fromkeys(family for fmt in TASK_FORMATS for family in fmt.families)
)
# every format's name, in their order (the schema's enum)
FORMAT_NAMES: tuple[str, ...] = tuple(dict.fromkeys(fmt.name for fmt in TASK_FORMATS))
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
