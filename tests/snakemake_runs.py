"""Running the repository's Snakefile from tests (imported as ``snakemake_runs``)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

REPO_ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO_ROOT / "Snakefile")]
MINIATURE = REPO_ROOT / "tests" / "miniature.yaml"
OFFLINE_ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}


def layer_config(into: dict, layer: dict) -> dict:
    """``layer`` over ``into`` as Snakemake layers config files: mappings key by key, any
    other value replaced; returns ``into``."""
    for key, value in layer.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            layer_config(into[key], value)
        else:
            into[key] = value
    return into


def miniature_config() -> dict:
    """The demo's config.yaml with tests/miniature.yaml over it: every stage of the demo DAG
    at the fewest steps, seeds and examples that drive its code paths."""
    demo = yaml.safe_load((REPO_ROOT / "config.yaml").read_text(encoding="utf-8"))
    return layer_config(demo, yaml.safe_load(MINIATURE.read_text(encoding="utf-8")))


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


def dry_run(workdir: Path, config: dict, *targets: str) -> subprocess.CompletedProcess:
    """A dry run on one core of ``config``, written to ``workdir/config.yaml`` beside a link
    to the demo data, for ``targets`` (default: the whole DAG)."""
    if not (workdir / "demo").exists():
        (workdir / "demo").symlink_to(REPO_ROOT / "demo")
    (workdir / "config.yaml").write_text(yaml.safe_dump(config))
    return run_snakemake(workdir, "-n", "--cores", "1", "--", *targets)


def planned_jobs(result: subprocess.CompletedProcess) -> dict[str, int]:
    """The 'Job stats' table of a run, as {rule: count} (a dry run prints it on stdout, a
    run on stderr)."""
    jobs: dict[str, int] = {}
    output = f"{result.stdout}\n\n{result.stderr}\n\n"
    match = re.search(r"Job stats:\n.*?\n-+\s+-+\n(.*?)\n\s*\n", output, re.S)
    if match:
        for line in match.group(1).splitlines():
            name, count = line.split()
            if name != "total":
                jobs[name] = int(count)
    return jobs


LOCAL_PROFILE = str(REPO_ROOT / "local")


def fake_finished_run(workdir: Path, configfiles: list) -> None:
    """Make ``workdir`` look like a finished ``--profile local`` run of these config files:
    every output the DAG plans exists (empty; a folder where the output's name has no
    suffix, as the rules' directory outputs have) and Snakemake's records mark it up to
    date. What a later run plans from there is what it would plan after a real run."""
    summary = run_with_configs(workdir, configfiles, "--profile", LOCAL_PROFILE, "--summary")
    assert summary.returncode == 0, summary.stderr[-3000:]
    for line in summary.stdout.splitlines()[1:]:
        path = workdir / line.split("\t")[0]
        if "." in path.name:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch()
        else:
            path.mkdir(parents=True, exist_ok=True)
    touched = run_with_configs(workdir, configfiles, "--profile", LOCAL_PROFILE, "--touch")
    assert touched.returncode == 0, touched.stderr[-3000:]
    planned = run_with_configs(workdir, configfiles, "--profile", LOCAL_PROFILE, "-n")
    assert "Nothing to be done" in planned.stdout + planned.stderr, planned.stdout[-3000:]
