"""The data files of a task config (light: imported when the DAG is built)."""

from __future__ import annotations

from collections.abc import Mapping

SPLITS = ("train", "dev", "test")


def task_files(task: Mapping) -> list[str]:
    """Paths of the task's train, dev (when given) and test files."""
    return [str(task[split]) for split in SPLITS if task.get(split)]
