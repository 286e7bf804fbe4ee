"""The comparisons job's intervals in the report (``biocompact.report.comparisons``): which models a
row cannot tell apart, and the words of a difference with its interval."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from biocompact.report.comparisons import STUDENT_TEACHER, VERSUS_BASELINE, VERSUS_BEST

NOT_DISTINGUISHABLE = "not distinguishable, 95%"


@dataclass
class RowIntervals:
    """One row of the results table (a task, a family average, the overall average or the
    BLURB score): every model's value interval and its comparisons."""

    values: dict[str, pd.Series] = field(default_factory=dict)  # model -> intervals.csv row
    versus_best: dict[str, pd.Series] = field(default_factory=dict)  # model -> comparison
    versus_baseline: dict[str, pd.Series] = field(default_factory=dict)
    best: str | None = None

    def tied(self) -> list[str]:
        """The best and every model not distinguishable from it, best first."""
        if self.best is None:
            return []
        return [self.best] + [
            model for model, row in self.versus_best.items() if not row["distinguishable"]
        ]


@dataclass
class Intervals:
    """comparisons.csv and intervals.csv, by row of the results table."""

    comparisons: pd.DataFrame
    values: pd.DataFrame

    @classmethod
    def read(cls, comparisons: str | Path, intervals: str | Path) -> Intervals:
        frame = pd.read_csv(comparisons, dtype={"row": str, "aso_leader": str})
        frame["distinguishable"] = frame["distinguishable"].astype(bool)
        return cls(frame, pd.read_csv(intervals, dtype={"row": str}))

    def row(self, row: str, level: str) -> RowIntervals:
        result = RowIntervals()
        values = self.values[(self.values["row"] == row) & (self.values["level"] == level)]
        result.values = {entry["model"]: entry for _, entry in values.iterrows()}
        here = self.comparisons[
            (self.comparisons["row"] == row) & (self.comparisons["level"] == level)
        ]
        for _, entry in here.iterrows():
            if entry["kind"] == VERSUS_BEST:
                result.versus_best[entry["model"]] = entry
                result.best = entry["reference"]
            elif entry["kind"] == VERSUS_BASELINE:
                result.versus_baseline[entry["model"]] = entry
        return result

    def retention(self, student: str, teacher: str, row: str, level: str) -> pd.Series | None:
        """The student-teacher comparison of one task (or ``overall``) row."""
        match = self.comparisons[
            (self.comparisons["kind"] == STUDENT_TEACHER)
            & (self.comparisons["model"] == student)
            & (self.comparisons["reference"] == teacher)
            & (self.comparisons["row"] == row)
            & (self.comparisons["level"] == level)
        ]
        return None if match.empty else match.iloc[0]


def points(value: float) -> str:
    """A difference of scores in [-1, 1] as signed percentage points."""
    return f"{100 * value:+.1f}"


def interval(low: float, high: float, scale: float = 100) -> str:
    """``[79.0, 83.1]``: a 95% interval of scores (x 100), or a dash without one."""
    if pd.isna(low) or pd.isna(high):
        return "[–]"
    return f"[{scale * low:.1f}, {scale * high:.1f}]"


def difference_text(entry: pd.Series) -> str:
    """``small - big: -3.5 points, 95% interval [-5.0, -2.1], p = 0.004 (Holm over 2 tasks:
    0.008), distinguishable``, from one comparison."""
    holm = (
        f" (Holm over {int(entry['holm_tests'])} tasks: {entry['p_holm']:.3f})"
        if entry["holm_tests"] > 1
        else ""
    )
    verdict = "distinguishable" if entry["distinguishable"] else NOT_DISTINGUISHABLE
    low, high = points(entry["ci_low"]), points(entry["ci_high"])
    return (
        f"{entry['model']} - {entry['reference']}: {points(entry['difference'])} points, 95% "
        f"interval [{low}, {high}], p = {entry['p_value']:.3f}{holm}, {verdict}"
    )
