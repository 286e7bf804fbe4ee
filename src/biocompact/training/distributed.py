"""Data parallelism inside one job: several processes (one per GPU) started by torchrun.

torchrun sets ``WORLD_SIZE``, ``RANK`` and ``LOCAL_RANK`` for every process; without them
the job is one process and every helper here is a no-op. Each process trains on its share
of every batch, DDP averages the gradients, and only the main process (rank 0) writes.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

import torch
import torch.distributed as dist


def world_size() -> int:
    return dist.get_world_size() if dist.is_initialized() else 1


def rank() -> int:
    return dist.get_rank() if dist.is_initialized() else 0


def is_main() -> bool:
    return rank() == 0


def device() -> torch.device:
    """This process's device: its own GPU under torchrun, else the GPU or the CPU."""
    if not torch.cuda.is_available():
        return torch.device("cpu")
    return torch.device("cuda", int(os.environ.get("LOCAL_RANK", 0)))


@contextlib.contextmanager
def process_group() -> Iterator[None]:
    """Join the process group that torchrun describes in the environment (if any) for the block."""
    if int(os.environ.get("WORLD_SIZE", 1)) <= 1 or dist.is_initialized():
        yield
        return
    if torch.cuda.is_available():
        torch.cuda.set_device(device())
    dist.init_process_group("nccl" if torch.cuda.is_available() else "gloo")
    try:
        yield
    finally:
        dist.destroy_process_group()


def gather(value: Any) -> list[Any]:
    """``value`` of every process, in rank order (a one-element list in a single process)."""
    if not dist.is_initialized():
        return [value]
    values: list[Any] = [None] * world_size()
    dist.all_gather_object(values, value)
    return values


def barrier() -> None:
    if dist.is_initialized():
        dist.barrier()
