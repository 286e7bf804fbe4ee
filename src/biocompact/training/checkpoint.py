"""Resumable training checkpoints: everything needed to continue as if never stopped."""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import numpy as np
import torch

from biocompact.files.atomic import atomic_path

STATE_FILE = "state.pt"
PREFIX = "step-"


def _step_of(folder: Path) -> int:
    return int(folder.name[len(PREFIX) :])


def rng_state() -> dict:
    state = {
        "python": random.getstate(),
        "numpy": np.random.get_state(),
        "torch": torch.get_rng_state(),
    }
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def set_rng_state(state: dict) -> None:
    random.setstate(state["python"])
    np.random.set_state(state["numpy"])
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def save_checkpoint(directory: str | os.PathLike, step: int, state: dict, keep: int = 2) -> Path:
    """Write ``state`` as checkpoint ``step`` atomically and keep only the newest ``keep``."""
    directory = Path(directory)
    target = directory / f"{PREFIX}{step:09d}"
    with atomic_path(target, is_dir=True) as folder:
        torch.save(state, folder / STATE_FILE)
    for old in sorted(directory.glob(f"{PREFIX}*"), key=_step_of)[:-keep]:
        shutil.rmtree(old, ignore_errors=True)
    for unfinished in directory.glob(f".{PREFIX}*.tmp-*"):  # left by a job killed while saving
        shutil.rmtree(unfinished, ignore_errors=True)
    return target


def latest_checkpoint(directory: str | os.PathLike) -> dict | None:
    """The newest complete checkpoint in ``directory``, or None."""
    folders = sorted(Path(directory).glob(f"{PREFIX}*[0-9]"), key=_step_of)
    if not folders:
        return None
    return torch.load(folders[-1] / STATE_FILE, weights_only=False)
