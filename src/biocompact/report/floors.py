"""The constant floors in the report: which models are at the floor of a row, and what is
left out of the ratios (retention, the share of the best kept) on their account.

A row's floor is its strongest constant floor: on a task, the floor (``FLOOR_MODELS``: the
majority class, all-positive where it applies) with the highest median; on an average,
``STRONGEST_FLOOR``, the average of those. A model is *at the floor* when the comparisons
job says so (``at_floor`` of its ``model - baseline`` comparison: the paired-bootstrap
difference is not distinguishable from 0, the rule of a bold best, or is below it); without
the comparisons' intervals, when its median is at or below the floor's (point estimates,
said so). A model at the floor is not ranked, and its task is left out of the ratios of
scores that involve it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

from biocompact.records.metrics import FLOOR_MODELS
from biocompact.report.aggregation import STRONGEST_FLOOR
from biocompact.report.intervals import Intervals, RowIntervals, difference_text

AT_FLOOR = "at the constant floor"
SHORT_NOTE = "≈ floor"
POINT_ESTIMATES = "median at or below it (point estimates: no intervals)"


def is_floor(model: str) -> bool:
    """Whether ``model`` is a constant floor (or the average of the strongest ones)."""
    return model in FLOOR_MODELS or model == STRONGEST_FLOOR


def strongest(values: Mapping[str, float]) -> str | None:
    """The floor of a row of ``values`` (model -> score): ``STRONGEST_FLOOR`` on an average,
    else the floor with the highest score (ties: the first of ``FLOOR_MODELS``)."""
    if STRONGEST_FLOOR in values and pd.notna(values[STRONGEST_FLOOR]):
        return STRONGEST_FLOOR
    floors = [f for f in FLOOR_MODELS if f in values and pd.notna(values[f])]
    return max(floors, key=lambda f: values[f]) if floors else None


@dataclass(frozen=True)
class FloorVerdict:
    """A model's place against its row's strongest floor: the floor, its score, whether the
    model is at it, and the comparison (with its interval) that decided it (None: decided on
    point estimates)."""

    floor: str
    floor_value: float
    at_floor: bool
    comparison: pd.Series | None = None

    def reason(self) -> str:
        """``at the constant floor (all-positive 52.0; a - all-positive: +0.2 points, 95%
        interval [-2.7, +3.0], ...)``."""
        floor = f"{self.floor} {100 * self.floor_value:.1f}"
        if self.comparison is not None:
            return f"{AT_FLOOR} ({floor}; {difference_text(self.comparison)})"
        return f"{AT_FLOOR} ({floor}; {POINT_ESTIMATES})"


def row_verdicts(
    values: Mapping[str, float], row: RowIntervals | None = None
) -> dict[str, FloorVerdict]:
    """Model -> its verdict on one row (``values``: model -> score, floors included; ``row``
    the comparisons of the row, None without intervals); empty without a floor."""
    floor = strongest(values)
    if floor is None:
        return {}
    verdicts = {}
    for model, value in values.items():
        if is_floor(model) or pd.isna(value):
            continue
        comparison = row.versus_baseline.get(model) if row is not None else None
        if comparison is not None and pd.notna(comparison.get("at_floor")):
            verdicts[model] = FloorVerdict(
                str(comparison["reference"]),
                float(comparison["reference_value"]),
                bool(comparison["at_floor"]),
                comparison,
            )
        else:
            verdicts[model] = FloorVerdict(floor, float(values[floor]), value <= values[floor])
    return verdicts


@dataclass
class FloorStatus:
    """Every task's primary medians (task -> model -> median, floors included) and the
    verdict of each model on each task."""

    medians: dict[str, dict[str, float]] = field(default_factory=dict)
    verdicts: dict[str, dict[str, FloorVerdict]] = field(default_factory=dict)

    @classmethod
    def build(cls, summary: pd.DataFrame, intervals: Intervals | None = None) -> FloorStatus:
        primary = summary[summary["primary"] & (summary["metric"] != "")]
        medians: dict[str, dict[str, float]] = {}
        for _, entry in primary.iterrows():
            medians.setdefault(str(entry["task"]), {})[str(entry["model"])] = entry["median"]
        verdicts = {
            task: row_verdicts(values, intervals.row(task, "task") if intervals else None)
            for task, values in medians.items()
        }
        return cls(medians, verdicts)

    def at_floor(self, model: str, task: str) -> bool:
        verdict = self.verdicts.get(task, {}).get(model)
        return verdict is not None and verdict.at_floor

    def models_at_floor(self, task: str, models: Sequence[str] | None = None) -> list[str]:
        """The models (of ``models``; every one when None) at the floor of ``task``."""
        return [
            model
            for model, verdict in self.verdicts.get(task, {}).items()
            if verdict.at_floor and (models is None or model in models)
        ]

    def left_out_text(self, models: Sequence[str] | None = None) -> str:
        """``GAD: 2 models at the constant floor left out; HoC: a``; empty when none is."""
        parts = []
        for task in self.verdicts:
            at = self.models_at_floor(task, models)
            if len(at) == 1:
                parts.append(f"{task}: {at[0]} {AT_FLOOR} left out")
            elif at:
                parts.append(f"{task}: {len(at)} models {AT_FLOOR} left out ({', '.join(at)})")
        return "; ".join(parts)

    def share(self, model: str, reference: str) -> tuple[float, list[str]]:
        """The mean of ``model``'s task medians over the mean of ``reference``'s, over the
        tasks both have where neither is at the floor (retention's formula), and the tasks
        left out on that account; NaN without such a task or with a reference mean of 0."""
        kept, left_out = [], []
        for task, values in self.medians.items():
            if pd.isna(values.get(model)) or pd.isna(values.get(reference)):
                continue
            if self.at_floor(model, task) or self.at_floor(reference, task):
                left_out.append(task)
            else:
                kept.append((values[model], values[reference]))
        total = sum(r for _, r in kept)
        ratio = sum(m for m, _ in kept) / total if kept and total > 0 else float("nan")
        return ratio, left_out
