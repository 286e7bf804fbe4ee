"""Job modules run as a job on two GPUs runs them: under torchrun, here on two CPU processes."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import biocompact
from biocompact.training.launch import JobSpec, torchrun_command

# the processes import this checkout's package and the job helpers beside the tests
IMPORT_PATH = [str(Path(__file__).parent), str(Path(biocompact.__file__).parents[1])]


def run_on_two_processes(module: str, spec: JobSpec, spec_path: Path, timeout: int = 300):
    """Write ``spec`` to ``spec_path`` and run job module ``module`` on it under torchrun on
    two CPU processes (gloo, one thread each); fail with the job's output unless it succeeds."""
    spec_path.parent.mkdir(parents=True, exist_ok=True)
    spec.write(spec_path)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([*IMPORT_PATH, os.environ.get("PYTHONPATH", "")]),
        "OMP_NUM_THREADS": "1",
        "CUDA_VISIBLE_DEVICES": "",
    }
    command = torchrun_command(module, spec_path, processes=2)
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
