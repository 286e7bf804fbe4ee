"""Running the repository's Snakefile from tests (imported as ``snakemake_runs``)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO_ROOT / "Snakefile")]
OFFLINE_ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}


def run_snakemake(workdir: Path, *args: str) -> subprocess.CompletedProcess:
    """Snakemake on the repository's Snakefile in ``workdir``, with ``workdir/config.yaml``."""
    return run_with_configs(workdir, [workdir / "config.yaml"], *args)


def run_with_configs(workdir: Path, configfiles: list, *args: str) -> subprocess.CompletedProcess:
    """Snakemake on the repository's Snakefile in ``workdir`` with these config files."""
    return subprocess.run(
        [*SNAKEMAKE, "--directory", str(workdir), "--configfile", *map(str, configfiles), *args],
        capture_output=True,
        text=True,
        env=OFFLINE_ENV,
        check=False,
    )


def planned_jobs(result: subprocess.CompletedProcess) -> dict[str, int]:
    """The 'Job stats' table of a dry run, as {rule: count}."""
    jobs: dict[str, int] = {}
    match = re.search(r"Job stats:\n.*?\n-+\s+-+\n(.*?)\n\s*\n", result.stdout + "\n\n", re.S)
    if match:
        for line in match.group(1).splitlines():
            name, count = line.split()
            if name != "total":
                jobs[name] = int(count)
    return jobs
