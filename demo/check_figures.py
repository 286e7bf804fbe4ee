"""The demo's documented figures, checked against a finished demo run.

``make demo`` ends with ``python demo/check_figures.py``: every figure of
``demo/figures.yaml`` (the numbers README.md and docs/ print for the demo) is read from its
result file and compared with the printed value within the figure's tolerance, and each
claim (one figure above another by a margin) is checked on the values read. A figure that
moved fails the run, naming the figure, its file, the printed and the measured value.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml

FIGURES = Path(__file__).with_name("figures.yaml")


@dataclass(frozen=True)
class Figure:
    """One printed number: where the run writes it and how far it may drift."""

    name: str
    file: str
    printed: float
    tolerance: float
    documented: str
    key: str = ""  # JSON: a dotted path into the file
    row: dict[str, str] = field(default_factory=dict)  # CSV: the columns that pick one row
    column: str = ""  # CSV: the column of the value
    scale: float = 1.0  # printed = scale x the file's value (100 for points)

    def read(self, workdir: Path) -> float:
        """The figure's value in the run of working directory ``workdir``."""
        path = workdir / self.file
        if not path.is_file():
            raise FigureError(f"{self.name}: {path} does not exist (did the demo run finish?)")
        if path.suffix == ".json":
            value = json.loads(path.read_text(encoding="utf-8"))
            for part in self.key.split("."):
                value = value[part]
            return float(value) * self.scale
        with path.open(newline="", encoding="utf-8") as handle:
            rows = [
                row
                for row in csv.DictReader(handle)
                if all(row[name] == wanted for name, wanted in self.row.items())
            ]
        if len(rows) != 1:
            raise FigureError(f"{self.name}: {len(rows)} rows of {path} match {self.row}, not 1")
        return float(rows[0][self.column]) * self.scale


@dataclass(frozen=True)
class Claim:
    """A figure above another by at least ``margin`` (printed units)."""

    figure: str
    above: str
    margin: float


class FigureError(Exception):
    """A figure that cannot be read, or that moved."""


def load(path: Path = FIGURES) -> tuple[list[Figure], list[Claim]]:
    """The figures and claims of ``path``."""
    entries = yaml.safe_load(path.read_text(encoding="utf-8"))
    figures = [Figure(**entry) for entry in entries["figures"]]
    claims = [Claim(**entry) for entry in entries.get("claims", [])]
    names = [figure.name for figure in figures]
    unknown = ({c.figure for c in claims} | {c.above for c in claims}) - set(names)
    if len(set(names)) != len(names) or unknown:
        raise FigureError(f"{path}: names repeat, or claims name unknown figures {unknown}")
    return figures, claims


def check(workdir: Path, figures: list[Figure], claims: list[Claim]) -> list[str]:
    """One line per figure that moved beyond its tolerance or claim that fails; none if all hold."""
    problems, values = [], {}
    for figure in figures:
        try:
            values[figure.name] = value = figure.read(workdir)
        except FigureError as error:
            problems.append(str(error))
            continue
        if abs(value - figure.printed) > figure.tolerance:
            problems.append(
                f"{figure.name} moved: {figure.documented} prints {figure.printed}, "
                f"{figure.file} gives {value:.4f} (tolerance {figure.tolerance})"
            )
    for claim in claims:
        if claim.figure in values and claim.above in values:
            gap = values[claim.figure] - values[claim.above]
            if gap < claim.margin:
                problems.append(
                    f"{claim.figure} ({values[claim.figure]:.4f}) is not {claim.margin} above "
                    f"{claim.above} ({values[claim.above]:.4f})"
                )
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", type=Path, default=Path("."), help="the demo run's folder")
    parser.add_argument("--figures", type=Path, default=FIGURES)
    arguments = parser.parse_args(argv)
    figures, claims = load(arguments.figures)
    problems = check(arguments.workdir, figures, claims)
    for problem in problems:
        print(f"demo figure check: {problem}", file=sys.stderr)
    if not problems:
        print(f"demo figure check: {len(figures)} figures and {len(claims)} claims as documented")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
