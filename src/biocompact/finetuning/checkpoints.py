"""Resumable checkpoints of the harness's Trainer runs, for the jobs that train long enough
to be cut off: task distillation's teacher and students (``biocompact.task_distillation``).

The Trainer saves a checkpoint every ``Checkpointing.every`` optimizer steps and at the end
(weights, optimizer, scheduler, random states, its state), keeping the newest two, and
``Trainer.train(resume_from_checkpoint=...)`` continues from one as if never stopped: the
same batches, the same dropout, the same weights (tests/task_distillation). What the
Trainer does not keep is saved beside its files: the seconds trained so far and the best
dev evaluation with its weights (``KeepBestModel``'s state). That file, written last and
atomically, marks the checkpoint complete; a job killed while saving leaves an incomplete
one, which is removed before resuming from the newest complete one.

A job's checkpoints hold ``settings.json``, what the trainings were started with: checkpoints
made with other settings are refused, as pretraining's are (delete the folder to start
afresh). The job removes its checkpoints once its outputs are written.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import torch
from transformers import Trainer, TrainerCallback
from transformers.trainer_utils import PREFIX_CHECKPOINT_DIR

from biocompact.files.atomic import atomic_path, write_json
from biocompact.training import distributed

log = logging.getLogger(__name__)

EXTRA_STATE = "biocompact_state.pt"  # written last: the checkpoint is complete
SETTINGS_FILE = "settings.json"
KEEP = 2  # checkpoints kept: the newest may be incomplete when a job is killed while saving


class Resumable(Protocol):
    """A Trainer callback with state of its own to save and restore (``KeepBestModel``)."""

    def state(self) -> dict[str, Any]: ...

    def restore(self, state: dict[str, Any]) -> None: ...


@dataclass(frozen=True)
class Checkpointing:
    """Resumable checkpoints in ``folder``, one every ``every`` optimizer steps."""

    folder: str
    every: int


def child(checkpointing: Checkpointing | None, name: str) -> Checkpointing | None:
    """The checkpoints of one training of the job, in a folder of its own (None: none)."""
    if checkpointing is None:
        return None
    return Checkpointing(str(Path(checkpointing.folder) / name), checkpointing.every)


def _step_of(folder: Path) -> int:
    return int(folder.name.rsplit("-", 1)[1])


def newest_complete(folder: str | os.PathLike) -> Path | None:
    """The newest complete checkpoint in ``folder`` (None: none); the main process removes
    incomplete ones."""
    found = sorted(Path(folder).glob(f"{PREFIX_CHECKPOINT_DIR}-*[0-9]"), key=_step_of)
    while found and not (found[-1] / EXTRA_STATE).exists():
        incomplete = found.pop()
        if distributed.is_main():
            log.info("removing the incomplete checkpoint %s", incomplete)
            shutil.rmtree(incomplete, ignore_errors=True)
    return found[-1] if found else None


def check_settings(folder: str | os.PathLike, settings: Mapping[str, Any]) -> None:
    """Refuse checkpoints in ``folder`` made with other ``settings`` (JSON values); record
    ``settings`` there for the next attempt (the main process)."""
    path = Path(folder) / SETTINGS_FILE
    if path.exists():
        saved = json.loads(path.read_text(encoding="utf-8"))
        if saved != json.loads(json.dumps(settings)):
            raise RuntimeError(
                f"checkpoints in {folder} were made with other settings; delete that folder "
                f"to start afresh.\n saved: {saved}\n now: {dict(settings)}"
            )
    elif distributed.is_main():
        write_json(path, settings)


def remove(checkpointing: Checkpointing | None) -> None:
    """Delete the job's checkpoints once its outputs are written (the main process)."""
    distributed.barrier()
    if checkpointing is not None and distributed.is_main():
        shutil.rmtree(checkpointing.folder, ignore_errors=True)


class _SaveExtraState(TrainerCallback):
    """After the Trainer has written a checkpoint: the seconds trained so far and the state
    of ``kept``, which mark it complete (the main process writes)."""

    def __init__(self, seconds_before: float, kept: Resumable | None) -> None:
        self.seconds_before = seconds_before
        self.started = time.perf_counter()
        self.kept = kept

    def seconds(self) -> float:
        return self.seconds_before + time.perf_counter() - self.started

    def on_save(self, args, state, control, **kwargs) -> None:
        if not state.is_world_process_zero:
            return
        folder = Path(args.output_dir) / f"{PREFIX_CHECKPOINT_DIR}-{state.global_step}"
        extra = {"seconds": self.seconds(), "kept": self.kept.state() if self.kept else None}
        with atomic_path(folder / EXTRA_STATE) as path:
            torch.save(extra, path)


def train(
    trainer: Trainer, checkpointing: Checkpointing | None, kept: Resumable | None = None
) -> float:
    """``trainer.train()``, from the newest complete checkpoint of ``checkpointing`` if
    there is one (``kept`` restored from it); return the seconds trained, those before a
    resume included. Without ``checkpointing``, the Trainer saves nothing."""
    if checkpointing is None:
        started = time.perf_counter()
        trainer.train()
        return time.perf_counter() - started
    resume = newest_complete(checkpointing.folder)
    seconds_before = 0.0
    if resume is not None:
        extra = torch.load(resume / EXTRA_STATE, weights_only=False)
        seconds_before = extra["seconds"]
        if kept is not None:
            kept.restore(extra["kept"])
        log.info("resuming from checkpoint %s", resume)
    saver = _SaveExtraState(seconds_before, kept)
    trainer.add_callback(saver)
    trainer.train(resume_from_checkpoint=str(resume) if resume else None)
    return saver.seconds()


def training_arguments(checkpointing: Checkpointing | None) -> dict[str, Any]:
    """The ``TrainingArguments`` that make a Trainer save into ``checkpointing`` (none:
    it saves nothing; the caller gives it a scratch ``output_dir``)."""
    if checkpointing is None:
        return {"save_strategy": "no"}
    return {
        "output_dir": checkpointing.folder,
        "save_strategy": "steps",
        "save_steps": checkpointing.every,
        "save_total_limit": KEEP,
    }
