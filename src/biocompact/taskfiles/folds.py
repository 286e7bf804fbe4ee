"""The data files of a task, per cross-validation fold (light: imported when the DAG is
built)."""

from __future__ import annotations

from dataclasses import replace

from biocompact.taskfiles.settings import FinetuningTask

SPLITS = ("train", "dev", "test")
EXTRA_FILES = ("golden", "intermediate")
FOLD_FIELD = "{fold}"


def fold_tasks(task: FinetuningTask) -> list[tuple[str | None, FinetuningTask]]:
    """(fold, task) for every fold of ``task.folds``, ``{fold}`` in the split paths
    replaced by the fold name; [(None, task)] for a task without folds."""
    if not task.folds:
        return [(None, task)]
    if not all(FOLD_FIELD in getattr(task, split) for split in ("train", "test")):
        raise ValueError(f"task {task.name!r} has folds but its train/test paths lack {FOLD_FIELD}")
    return [
        (
            str(fold),
            replace(
                task,
                **{
                    split: getattr(task, split).replace(FOLD_FIELD, str(fold))
                    for split in SPLITS
                    if getattr(task, split)
                },
            ),
        )
        for fold in task.folds
    ]


def task_files(task: FinetuningTask) -> list[str]:
    """Paths of the task's train, dev (when given) and test files of every fold, and of
    its golden and intermediate files when given."""
    files = [
        getattr(settings, split)
        for _, settings in fold_tasks(task)
        for split in SPLITS
        if getattr(settings, split)
    ]
    return files + [getattr(task, key) for key in EXTRA_FILES if getattr(task, key)]
