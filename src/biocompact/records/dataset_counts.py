"""``{cache}/counts/{dataset}/{file}.json``: the checked counts of one prepared file of a
registered dataset, written by its job (``datasets.rules.prepare_dataset``, from
``datasets.prepare.prepare_file``) and read by the report's dataset table
(docs/outputs.md)."""

from __future__ import annotations

from dataclasses import dataclass, field

from biocompact.entries import FLAT
from biocompact.records.base import RecordFile


@dataclass(frozen=True, kw_only=True)
class CheckedCounts:
    """A converted split checked against its registry entry (``datasets.check.check_split``):
    its dataset, split and fold (None: a dataset without folds), the size ``converted``,
    counted in ``unit``, and the size ``published`` (None where no source states one) with
    the difference allowed, the source of the published sizes and the split's note."""

    dataset: str
    split: str
    fold: str | None
    unit: str
    converted: int
    published: int | None
    tolerance: int
    sizes_from: str | None
    note: str | None


@dataclass(frozen=True, kw_only=True)
class PreparedFileCounts(RecordFile):
    """A prepared file's checked counts, its path within the dataset's folder and its size
    in bytes."""

    FILE = "dataset counts record (counts/{dataset}/{file}.json)"
    RECORD = "dataset counts record"

    counts: CheckedCounts = field(metadata=FLAT)
    file: str
    bytes: int
