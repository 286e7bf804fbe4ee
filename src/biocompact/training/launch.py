"""Starting a training job on the GPUs it was given: in this process, or one process per GPU.

A rule asks for GPUs through its ``gpu`` resource (``resources.gpus`` of a model in the
config, see ``gpu_job_resources`` in ``workflow/rules/common.smk``). With more
than one, the job runs ``torchrun --standalone --nproc_per_node=N -m MODULE SPEC`` on
its node, where MODULE reads the job's keyword arguments from the JSON file SPEC.

A job module (``biocompact.pretraining.run``, ``biocompact.distillation.run``) defines
``run_job(spec)``, which every process calls, and ends with ``job_main(run_job)``; its
script calls ``launch(MODULE, spec, gpus)``. The processes per node are the
GPUs per node, so a job over several nodes adds a rendezvous to the same command.
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import torch

from biocompact.atomic import write_json
from biocompact.training import distributed

log = logging.getLogger(__name__)

SPEC_FILE = "job.json"


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


def launch(module: str, spec: dict, gpus: int) -> None:
    """Run ``module``'s job ``spec`` here, or data-parallel on ``gpus`` GPUs (see the module
    doc); the processes read ``spec`` from ``SPEC_FILE`` in its ``checkpoint_dir``."""
    processes = data_parallel_processes(gpus)
    if processes == 1:
        importlib.import_module(module).run_job(spec)
    else:
        run_data_parallel(module, spec, processes, Path(spec["checkpoint_dir"]) / SPEC_FILE)


def job_main(run_job: Callable[[dict], object], argv: list[str] | None = None) -> None:
    """The command line of a job module: run the job in the JSON file it names, in the
    process group torchrun describes (if any), logging with the process's rank."""
    parser = argparse.ArgumentParser(
        description="Run one training job (under torchrun: one process per GPU)."
    )
    parser.add_argument("spec", type=Path, help="JSON file with the job's arguments")
    spec = json.loads(parser.parse_args(argv).spec.read_text(encoding="utf-8"))
    logging.basicConfig(
        level=logging.INFO,
        format=f"%(asctime)s rank {os.environ.get('RANK', 0)} %(levelname)s %(name)s: %(message)s",
    )
    with distributed.process_group():
        run_job(spec)
