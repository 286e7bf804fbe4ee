"""Starting a training job on the GPUs it was given: in this process, or one process per GPU.

A rule asks for GPUs through its resources (``resources.gpus`` and ``resources.nodes`` of a
model in the config, see ``gpu_job_resources`` in ``workflow/rules/common.smk``). On one
node with more than one GPU, the job runs ``torchrun --standalone --nproc_per_node=G -m
MODULE SPEC``, where MODULE, the job's module, reads the job's spec from the JSON file SPEC. On
N nodes (a Slurm job of N nodes, its Snakemake job running on the first), ``srun`` starts
one torchrun per node, and torchrun's c10d rendezvous on the first node joins them into
N x G processes.

A job's arguments cross the process boundary as a ``JobSpec``, a frozen dataclass that the
rule's process writes as JSON and every training process reads back, typed, with
``from_json`` (pydantic rebuilds its settings dataclasses, tuples and optionals). A job
module (``biocompact.pretraining.run``, ``biocompact.distillation.run``,
``biocompact.task_distillation.job``) defines its spec and the job, a function of the spec
(``run_pretraining(spec)``), which every process calls, and ends with ``job_main(job,
read)``; its rule calls ``launch(job, spec, gpus, nodes)``.
"""

from __future__ import annotations

import argparse
import logging
import os
import socket
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Self, TypeVar

import torch
from pydantic import ValidationError

from biocompact.entries import validator
from biocompact.files.atomic import read_json, write_json
from biocompact.training import distributed

log = logging.getLogger(__name__)

SPEC_FILE = "job.json"
Spec = TypeVar("Spec", bound="JobSpec")


@dataclass(frozen=True, kw_only=True)
class JobSpec:
    """The arguments of a job that every one of its processes reads: where its checkpoints
    (and this spec's file) go and its CPU threads; each job kind adds its own fields
    (settings dataclasses, named files as plain mappings of paths)."""

    checkpoint_dir: str
    threads: int

    def to_json(self) -> dict[str, Any]:
        """The spec as JSON values (``from_json`` reads them back to an equal spec)."""
        return asdict(self)

    @classmethod
    def from_json(cls, values: Mapping[str, Any], source: str | os.PathLike = "job spec") -> Self:
        """The spec that ``to_json`` wrote, its nested dataclasses and tuples rebuilt, read as
        strictly as a config entry but for a whole number in a ``float`` field, which stays an
        int, as the rule's process held it (an ``epochs: float`` of 3), so that every process
        writes the records a single process would; a malformed one is an error naming
        ``source`` (its file) and the field."""
        try:
            return validator(cls).validate_python(values)
        except ValidationError as error:
            raise ValueError(f"{source}: not a {cls.__name__}: {error}") from None

    def write(self, path: str | os.PathLike) -> None:
        """Write the spec to the JSON file ``path`` (``read`` reads it back)."""
        write_json(path, self.to_json())

    @classmethod
    def read(cls, path: str | os.PathLike) -> Self:
        """The spec in the JSON file ``path``."""
        return cls.from_json(read_json(path), path)


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


def multi_node_command(
    module: str,
    spec_path: str | os.PathLike,
    *,
    nodes: int,
    processes_per_node: int,
    cpus_per_node: int,
    rendezvous: str,
    job_id: str,
) -> list[str]:
    """``srun`` starting one torchrun on each of the Slurm job's ``nodes``, joined through
    torchrun's c10d rendezvous at ``rendezvous`` (host:port of the first node)."""
    return [
        "srun",
        f"--nodes={nodes}",
        f"--ntasks={nodes}",
        "--ntasks-per-node=1",
        f"--cpus-per-task={cpus_per_node}",
        "--kill-on-bad-exit=1",
        sys.executable,
        "-m",
        "torch.distributed.run",
        f"--nnodes={nodes}",
        f"--nproc_per_node={processes_per_node}",
        "--rdzv_backend=c10d",
        f"--rdzv_endpoint={rendezvous}",
        f"--rdzv_id=biocompact-{job_id}",
        "-m",
        module,
        str(spec_path),
    ]


def rendezvous_endpoint() -> str:
    """host:port for the rendezvous: this host (a Slurm job's first node, where its batch
    script and so its Snakemake job run) and a port free on it."""
    with socket.socket() as probe:
        probe.bind(("", 0))
        port = probe.getsockname()[1]
    return f"{socket.gethostname()}:{port}"


def slurm_job_id(nodes: int) -> str:
    """The Slurm job this process runs in; a job over ``nodes`` > 1 outside one is an error."""
    job_id = os.environ.get("SLURM_JOB_ID")
    if not job_id:
        raise RuntimeError(
            f"the job asked for {nodes} nodes (resources.nodes) but runs outside a Slurm job; "
            "run it with the slurm profile, or set resources.nodes to 1"
        )
    return job_id


def run_data_parallel(command: list[str], spec: JobSpec, spec_path: str | os.PathLike) -> None:
    """Write ``spec`` to ``spec_path`` and run ``command``, relaying its output to the log."""
    spec.write(spec_path)
    log.info("starting the training processes: %s", " ".join(command))
    env = {**os.environ, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1")}
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
    ) as process:
        assert process.stdout is not None  # stdout=PIPE
        for line in process.stdout:
            log.info("%s", line.rstrip())
    if process.returncode:
        raise RuntimeError(
            f"the training processes ended with exit status {process.returncode} (their "
            f"output is above); spec {Path(spec_path)}"
        )


def launch(job: Callable[[Spec], object], spec: Spec, gpus: int, nodes: int = 1) -> None:
    """Run ``job(spec)`` here, or data-parallel on ``gpus`` GPUs on each of ``nodes`` nodes
    (see the module doc): processes that run ``job``'s module, which read ``spec`` from
    ``SPEC_FILE`` in its ``checkpoint_dir``."""
    module, spec_path = job.__module__, Path(spec.checkpoint_dir) / SPEC_FILE
    if nodes > 1:
        job_id = slurm_job_id(nodes)
        command = multi_node_command(
            module,
            spec_path,
            nodes=nodes,
            processes_per_node=data_parallel_processes(gpus),
            cpus_per_node=spec.threads,
            rendezvous=rendezvous_endpoint(),
            job_id=job_id,
        )
        run_data_parallel(command, spec, spec_path)
        return
    processes = data_parallel_processes(gpus)
    if processes == 1:
        job(spec)
    else:
        run_data_parallel(torchrun_command(module, spec_path, processes), spec, spec_path)


def job_main(
    job: Callable[[Spec], object],
    read: Callable[[Path], Spec],
    argv: list[str] | None = None,
) -> None:
    """The command line of a job module: run ``job`` on the spec that ``read`` reads from
    the JSON file it names, in the process group torchrun describes (if any), logging with the
    process's rank."""
    parser = argparse.ArgumentParser(
        description="Run one training job (under torchrun: one process per GPU)."
    )
    parser.add_argument("spec", type=Path, help="JSON file with the job's arguments")
    spec = read(parser.parse_args(argv).spec)
    logging.basicConfig(
        level=logging.INFO,
        format=f"%(asctime)s rank {os.environ.get('RANK', 0)} %(levelname)s %(name)s: %(message)s",
    )
    with distributed.process_group():
        job(spec)
