"""Starting a training job on the GPUs it was given: in this process, or one process per GPU.

A rule asks for GPUs through its ``gpu`` resource (``resources.gpus`` of a model in the
config, see ``gpu_job_resources`` in ``workflow/rules/common.smk``). With more
than one, the job runs ``torchrun --standalone --nproc_per_node=N -m MODULE SPEC`` on
its node, where MODULE reads the job's keyword arguments from the JSON file SPEC.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import torch

from biocompact.atomic import write_json

log = logging.getLogger(__name__)


def data_parallel_processes(requested_gpus: int) -> int:
    """How many training processes to start for a job given ``requested_gpus`` GPUs.

    More than one GPU requested but fewer visible is an error (a wrong allocation would
    otherwise train on a fraction of what was paid for); a job that asked for one GPU
    and sees none (a local run of the cluster config) trains on the CPU, with a warning.
    """
    available = torch.cuda.device_count()
    visible = f"CUDA_VISIBLE_DEVICES={os.environ.get('CUDA_VISIBLE_DEVICES')!r}"
    if requested_gpus > 1 and requested_gpus > available:
        raise RuntimeError(
            f"the job asked for {requested_gpus} GPUs but sees {available} ({visible}); "
            "check the model's resources.gpus in the config and the cluster's allocation"
        )
    if requested_gpus == 1 and available == 0:
        log.warning("the job asked for a GPU but sees none (%s): training on the CPU", visible)
    return max(requested_gpus, 1)


def torchrun_command(module: str, spec_path: str | os.PathLike, processes: int) -> list[str]:
    return [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        f"--nproc_per_node={processes}",
        "-m",
        module,
        str(spec_path),
    ]


def run_data_parallel(
    module: str, spec: dict, processes: int, spec_path: str | os.PathLike
) -> None:
    """Write ``spec`` to ``spec_path`` and run ``module`` under torchrun, relaying its output to the log."""
    write_json(spec_path, spec)
    command = torchrun_command(module, spec_path, processes)
    log.info("starting %d training processes: %s", processes, " ".join(command))
    env = {**os.environ, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1")}
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
    ) as process:
        for line in process.stdout:
            log.info("%s", line.rstrip())
    if process.returncode:
        raise RuntimeError(
            f"torchrun ended with exit status {process.returncode} (its output is above); spec {Path(spec_path)}"
        )
