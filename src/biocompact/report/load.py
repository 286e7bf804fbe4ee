"""Read result files into pandas tables, records and plain dicts."""

from __future__ import annotations

import datetime
import importlib.metadata
import json
import platform
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from biocompact.files.atomic import read_json
from biocompact.records.efficiency import EfficiencyResult

PACKAGES = [
    "biocompact",
    "torch",
    "transformers",
    "tokenizers",
    "datasets",
    "snakemake",
    "pandas",
    "numpy",
    "matplotlib",
    "jinja2",
    "scispacy",
    "seqeval",
]
BENCHMARK_COLUMNS = ["s", "max_rss", "cpu_time"]


def read_summary(path: str | Path) -> pd.DataFrame:
    """``summary.csv`` with ``missing_seeds``, ``definition`` and ``subsample`` as text."""
    text = ["missing_seeds", "definition", "metric", "subsample"]
    summary = pd.read_csv(path, dtype=dict.fromkeys(text, str))
    summary[text] = summary[text].fillna("")
    return summary


def read_efficiency(paths: Iterable[str | Path]) -> list[EfficiencyResult]:
    """Every efficiency stage's result file, in order; one written before the stage measured
    a model's weights apart from its pass's activations (no ``weights_mb``) is refused,
    naming the file and the command that measures it again, before it is read as a record
    (which it is not)."""
    paths = list(paths)
    for path, written in zip(paths, [read_json(path) for path in paths], strict=True):
        if "weights_mb" not in written:
            raise ValueError(
                f"{path}: written by an older efficiency stage (one peak memory figure, no "
                "weights_mb); measure again: snakemake --profile local --forcerun efficiency"
            )
    return [EfficiencyResult.read(path) for path in paths]


def read_train_logs(paths: Iterable[str | Path]) -> pd.DataFrame:
    """All ``train_log.jsonl`` rows with ``stage`` and ``model`` taken from the path.

    A log lives at ``.../{stage}/{model}/train_log.jsonl``.
    """
    frames = []
    for path in map(Path, paths):
        with open(path, encoding="utf-8") as handle:
            rows = [json.loads(line) for line in handle if line.strip()]
        frame = pd.DataFrame(rows)
        frame.insert(0, "model", path.parent.name)
        frame.insert(0, "stage", path.parent.parent.name)
        frames.append(frame)
    return (
        pd.concat(frames, ignore_index=True)
        if frames
        else pd.DataFrame(columns=["stage", "model", "step"])
    )


def read_benchmarks(folder: str | Path) -> pd.DataFrame:
    """Every Snakemake benchmark TSV under ``folder``: one row per line, ``stage`` = first subfolder."""
    folder = Path(folder)
    frames = []
    for path in sorted(folder.rglob("*.tsv")):
        frame = pd.read_csv(path, sep="\t")
        frame = frame.reindex(columns=BENCHMARK_COLUMNS).apply(pd.to_numeric, errors="coerce")
        relative = path.relative_to(folder)
        frame.insert(0, "job", str(relative.with_suffix("")))
        frame.insert(0, "stage", relative.parts[0] if len(relative.parts) > 1 else "(top level)")
        frames.append(frame)
    if not frames:
        return pd.DataFrame(columns=["stage", "job", *BENCHMARK_COLUMNS])
    return pd.concat(frames, ignore_index=True)


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _git(directory: str | Path, *arguments: str) -> str | None:
    """The output of a git command in ``directory``, or None when git or the repository is absent."""
    try:
        result = subprocess.run(
            ["git", *arguments],
            cwd=directory,
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return result.stdout.strip()


def _git_commit(directory: str | Path) -> str:
    """The commit of ``directory``, with ``(+ uncommitted changes)`` when tracked files differ from it."""
    commit = _git(directory, "rev-parse", "HEAD")
    if not commit:
        return "unknown"
    changes = _git(directory, "status", "--porcelain", "--untracked-files=no")
    return commit + (" (+ uncommitted changes)" if changes else "")


def provenance(config: Mapping[str, Any], directory: str | Path = ".") -> dict[str, Any]:
    """The config as YAML, software versions (from package metadata), git commit and date."""
    return {
        "config": yaml.safe_dump(
            json.loads(json.dumps(config, default=str)), sort_keys=False, allow_unicode=True
        ),
        "versions": {"python": platform.python_version(), **{p: _version(p) for p in PACKAGES}},
        "commit": _git_commit(directory),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "platform": platform.platform(),
    }
