"""A pretraining job that also keeps each process's weights, to compare them across ranks.

``python -m rank_weights SPEC.json`` under torchrun runs ``biocompact.pretraining.run``'s
job and, in every process, saves the objective's trainable parameters before and after
training to ``rank-R.pt`` in the job's checkpoint folder (the job itself writes rank 0's
model only).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import datasets
import torch

from biocompact.pretraining.run import PretrainingSpec, run_pretraining
from biocompact.training import distributed, stage
from biocompact.training.batches import MaskedBatcher
from biocompact.training.launch import job_main
from biocompact.training.objective import Objective
from biocompact.training.settings import TrainingSettings

_train = stage.train  # the loop itself, which the job calls through ``stage``


def trainable_parameters(objective: Objective) -> dict[str, torch.Tensor]:
    """Copies of the parameters the optimiser updates (a tied one once, under its first name)."""
    return {
        name: parameter.detach().clone()
        for name, parameter in objective.named_parameters()
        if parameter.requires_grad
    }


def rank_file(checkpoint_dir: str | os.PathLike, rank: int) -> Path:
    return Path(checkpoint_dir) / f"rank-{rank}.pt"


def train_keeping_weights(
    objective: Objective,
    dataset: datasets.Dataset,
    batcher: MaskedBatcher,
    settings: TrainingSettings,
    checkpoint_dir: str | os.PathLike,
    **options: Any,
) -> Path:
    """``stage.train`` that saves this process's parameters before and after training."""
    before = trainable_parameters(objective)
    log_path = _train(objective, dataset, batcher, settings, checkpoint_dir, **options)
    weights = {"before": before, "after": trainable_parameters(objective)}
    torch.save(weights, rank_file(checkpoint_dir, distributed.rank()))
    return log_path


if __name__ == "__main__":
    stage.train = train_keeping_weights
    job_main(run_pretraining, PretrainingSpec.read)
