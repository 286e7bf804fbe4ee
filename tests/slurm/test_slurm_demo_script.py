"""`make slurm-demo`'s script, slurm/demo-on-this-machine.sh: it starts the two-node test
cluster on this machine, runs the demo through the slurm profile (here one file's download, a
local rule, and its parsing, a Slurm job; test_slurm_cluster.py runs the training stages
through Slurm) and stops the cluster again. It needs root and Debian's slurm-wlm and munge (installed when
missing); where Slurm cannot be set up the test is skipped with the reason, as in
test_slurm_cluster.py, whose cluster must not be running at the same time.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO_ROOT = Path(__file__).resolve().parents[2]
SCRIPT = "slurm/demo-on-this-machine.sh"
TARGET = "results/corpus/pubmed/parsed/demo25n0001.json"


def _checkout(folder: Path) -> Path:
    """The repository as links to its files (its .venv too), without results of its own."""
    checkout = folder / "biocompact"
    checkout.mkdir()
    for entry in REPO_ROOT.iterdir():
        if entry.name not in (".git", "results", ".snakemake"):
            (checkout / entry.name).symlink_to(entry)
    return checkout


def test_the_script_runs_the_demo_through_slurm_on_this_machine_and_stops_the_cluster(tmp_path):
    checkout = _checkout(tmp_path)
    result = subprocess.run(
        [str(checkout / SCRIPT), TARGET],
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
        env={**os.environ, "SLURM_DEMO_STATE": str(tmp_path / "state")},
    )
    if result.returncode == 3:
        pytest.skip(f"no Slurm test cluster: {result.stderr.strip().splitlines()[-2]}")
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-6000:]
    # the download is a local rule (the login node has the network), the parsing a Slurm job
    assert "localrule corpus_download_pubmed" in output, output[-4000:]
    assert output.count("has been submitted with SLURM jobid") == 1, output[-4000:]
    assert json.loads((checkout / TARGET).read_text())["documents"] > 0
    # the cluster it started is stopped: no controller answers
    assert subprocess.run(["scontrol", "ping"], capture_output=True, check=False).returncode != 0
