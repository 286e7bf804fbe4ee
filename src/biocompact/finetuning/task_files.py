"""The data files of a task config, per cross-validation fold (light: imported when the
DAG is built)."""

from __future__ import annotations

from collections.abc import Mapping

SPLITS = ("train", "dev", "test")
EXTRA_FILES = ("golden", "intermediate")
FOLD_FIELD = "{fold}"


def fold_tasks(task: Mapping) -> list[tuple[str | None, dict]]:
    """(fold, task) for every fold of ``task["folds"]``, ``{fold}`` in the split paths
    replaced by the fold name; [(None, task)] for a task without folds."""
    folds = task.get("folds")
    if not folds:
        return [(None, dict(task))]
    if not all(FOLD_FIELD in str(task[split]) for split in ("train", "test")):
        raise ValueError(
            f"task {task.get('name')!r} has folds but its train/test paths lack {FOLD_FIELD}"
        )
    return [
        (
            str(fold),
            {
                **task,
                **{
                    split: str(task[split]).replace(FOLD_FIELD, str(fold))
                    for split in SPLITS
                    if task.get(split)
                },
            },
        )
        for fold in folds
    ]


def task_files(task: Mapping) -> list[str]:
    """Paths of the task's train, dev (when given) and test files of every fold, and of
    its golden and intermediate files when given."""
    files = [
        str(settings[split])
        for _, settings in fold_tasks(task)
        for split in SPLITS
        if settings.get(split)
    ]
    return files + [str(task[key]) for key in EXTRA_FILES if task.get(key)]
