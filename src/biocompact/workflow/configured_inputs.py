"""Input files that the config names (task data, local corpora and sources, transfer sets),
checked when the DAG is built (light: no torch).

Snakemake treats an input that exists as up to date and one that no rule makes as an
error of the job that needs it; but once that job's outputs exist from an earlier run, a
configured file that has since gone missing (a typo in a path, a glob matching nothing)
only drops the job from the plan, and later stages run on the old results. So every file
the config names must exist before any job is planned, whatever ``results/`` holds; a
path under ``results/`` is a file the DAG builds (a dataset's split files, the corpus's
sentences as a transfer set), left to Snakemake.
"""

from __future__ import annotations

import glob
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import unquote, urlparse

from biocompact.corpus.download import URL_SCHEMES
from biocompact.taskfiles.folds import EXTRA_FILES, SPLITS, fold_tasks
from biocompact.taskfiles.settings import FinetuningTask

BUILT_BY_THE_DAG = "results/"


class MissingInputError(ValueError):
    """Files named by the config do not exist."""


def missing_files(files: Iterable[tuple[str, str]]) -> list[str]:
    """One line per (config key, path) whose path is not an existing file (paths under
    ``results/`` skipped: the DAG builds them)."""
    return [
        f"config: {key}: file {path!r} does not exist (working directory {Path.cwd()})"
        for key, path in files
        if not path.startswith(BUILT_BY_THE_DAG) and not Path(path).is_file()
    ]


def require_files(files: Iterable[tuple[str, str]]) -> None:
    """Raise ``MissingInputError`` listing every (config key, path) whose file is missing."""
    problems = missing_files(files)
    if problems:
        raise MissingInputError("\n".join(problems))


def glob_files(patterns: Iterable[str], key: str) -> list[str]:
    """The files of ``patterns`` (paths or glob patterns, each one's matches sorted), in
    order; a pattern that matches no file is an error naming ``key``."""
    files = []
    for pattern in patterns:
        matches = sorted(glob.glob(pattern))
        if not matches:
            raise MissingInputError(
                f"config: {key}: {pattern!r} matches no file (working directory {Path.cwd()})"
            )
        files += matches
    return files


FILE_URL = "file://"


def local_path(location: str) -> str | None:
    """The path of a folder path or ``file://`` URL; None for a remote URL (only its
    download can tell whether it exists)."""
    if location.startswith(FILE_URL):
        return unquote(urlparse(location).path)
    return None if location.startswith(URL_SCHEMES) else location


def local_source_files(
    source: str, names: Iterable[str], key: str, folder: str = ""
) -> list[tuple[str, str]]:
    """(``key``, path) of each of ``names`` under ``source``/``folder`` when ``source`` is
    local (a folder or ``file://`` URL); nothing for a remote one."""
    root = local_path(source)
    return [] if root is None else [(key, str(Path(root, folder, name))) for name in names]


def task_input_files(name: str, task: FinetuningTask) -> list[tuple[str, str]]:
    """(config key, path) of every data file of task ``name``: train, dev (when given) and
    test of each fold, and its golden and intermediate files when given."""
    where = f"finetuning.tasks.{name}"
    files = []
    for fold, settings in fold_tasks(task):
        suffix = f" (fold {fold})" if fold is not None else ""
        files += [
            (f"{where}.{split}{suffix}", getattr(settings, split))
            for split in SPLITS
            if getattr(settings, split)
        ]
    return files + [
        (f"{where}.{key}", getattr(task, key)) for key in EXTRA_FILES if getattr(task, key)
    ]
