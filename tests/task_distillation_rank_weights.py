"""A task-distillation job that also keeps each process's trained student weights, to compare
them across ranks.

``python -m task_distillation_rank_weights SPEC.json`` under torchrun runs
``biocompact.task_distillation.job``'s job and, in every process, saves each student's
weights after its training to ``rank-R-seedS.pt`` in the folder that holds the job's seed
folders (``weights_dir``; the job itself writes rank 0's outputs only).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import torch
from transformers import PreTrainedModel

from biocompact.task_distillation import student
from biocompact.task_distillation.job import StudentsSpec, TeacherSpec, read_spec, run_job
from biocompact.training import distributed
from biocompact.training.launch import job_main

_train = student.train_without_dev  # the harness's training, which run_students calls


def rank_file(folder: str | os.PathLike, rank: int, seed: int) -> Path:
    return Path(folder) / f"rank-{rank}-seed{seed}.pt"


def weights_dir(spec: TeacherSpec | StudentsSpec) -> Path:
    """Where a students job's kept weights go: beside its seeds' folders (its checkpoints'
    folder is removed when the job ends); a teacher's job trains no student."""
    if isinstance(spec, StudentsSpec):
        return Path(spec.outputs["evaluations"][0]).parent.parent
    return Path(spec.checkpoint_dir)


@contextlib.contextmanager
def keeping_weights(folder: str | os.PathLike) -> Iterator[None]:
    """In the block, the students' training also saves this process's trained weights."""

    def train_keeping_weights(
        model: PreTrainedModel,
        family,
        tokenizer,
        data,
        hyperparameters,
        seed: int,
        *rest,
        **options,
    ) -> float:
        seconds = _train(model, family, tokenizer, data, hyperparameters, seed, *rest, **options)
        weights = {name: tensor.detach().cpu() for name, tensor in model.state_dict().items()}
        Path(folder).mkdir(parents=True, exist_ok=True)
        torch.save(weights, rank_file(folder, distributed.rank(), seed))
        return seconds

    student.train_without_dev = train_keeping_weights
    try:
        yield
    finally:
        student.train_without_dev = _train


def run_job_keeping_weights(spec: TeacherSpec | StudentsSpec) -> None:
    """``run_job``, keeping every process's trained student weights."""
    with keeping_weights(weights_dir(spec)):
        run_job(spec)


if __name__ == "__main__":
    job_main(run_job_keeping_weights, read_spec)
