"""Every command printed in README.md, docs/ and the headers of configs/ runs as printed.

Snakemake commands run in dry-run mode (``-n`` added after the program) in a mirror of the
checkout holding the demo, with ``../shared`` beside it when it exists; each dry run must
list only the work of the config files it names. The real-data command (NCBI-disease) also
runs for real when ``../shared/data`` is present, on the session's demo teacher. Any other
command must be listed in ``RUN_ELSEWHERE`` with what runs it, so a new command cannot slip
through untested.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from snakemake_runs import OFFLINE_ENV, REPO_ROOT, layer_config

SHARED = REPO_ROOT.parent / "shared"
DOCUMENTS = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]
CONFIGS = sorted((REPO_ROOT / "configs").glob("*.yaml"))
SNAKEMAKE_PROGRAMS = ("snakemake", ".venv/bin/snakemake")
REAL_DATA_TARGET = "results/finetuning/demo-teacher/ncbi-disease/seed1/metrics.json"
# Commands that are not Snakemake runs, each with what runs it.
RUN_ELSEWHERE = {
    "make demo": "CI (.ci/run) runs it, ending with demo/check_figures.py (tests/workflow/test_demo_figures.py); the demo_run fixture runs its DAG in miniature",
    "make test": "CI (.ci/run) runs it on a clean checkout",
    "make slurm-demo": "tests/slurm/test_slurm_demo_script.py runs the script it calls",
    "python benchmarks/": "benchmarks print the speed figures of docs/speed.md; run by hand, minutes to hours",
    ".venv/bin/python benchmarks/": "benchmarks print the figures of docs/; run by hand",
    "export ": "sets the variables of the commands after it (applied here)",
    "tensorboard --logdir": "TensorBoard is not installed here; tests/training/test_tensorboard_events.py checks the event files it reads",
    "pip download ": "needs network: wheels for an offline GPU machine; tests/benchmarks/test_gpu_suite.py checks the list it reads",
    "pip install --no-": "installs those wheels and the checkout on the GPU machine, offline",
}
WILDCARD_NAMES = {
    "model": ("pretraining", "distillation", "external_models"),
    "task": ("finetuning.tasks",),
    "vocab": ("vocabularies",),
}


def _fenced_commands(text: str) -> list[str]:
    """Commands of the ```bash blocks: continuation lines joined, comments dropped."""
    commands = []
    for block in re.findall(r"^```(?:bash|sh|shell)\n(.*?)^```", text, re.S | re.M):
        for line in block.replace("\\\n", " ").splitlines():
            command = " ".join(shlex.split(line, comments=True))
            if command:
                commands.append(command)
    return commands


def _config_header_commands(path: Path) -> list[str]:
    """``#   snakemake ...`` lines of a config file's header comment."""
    header = "".join(
        line[1:] for line in path.read_text().splitlines(keepends=True) if line.startswith("#")
    )
    return [
        " ".join(shlex.split(line, comments=True))
        for line in header.replace("\\\n", " ").splitlines()
        if line.strip().startswith(SNAKEMAKE_PROGRAMS)
    ]


def documented_commands() -> list[tuple[str, str]]:
    """(where, command) for every command of the documents and config headers."""
    found = [
        (doc.name, command) for doc in DOCUMENTS for command in _fenced_commands(doc.read_text())
    ]
    found += [
        (f"configs/{path.name}", command)
        for path in CONFIGS
        for command in _config_header_commands(path)
    ]
    return found


COMMANDS = documented_commands()
SNAKEMAKE_COMMANDS = sorted({c for _, c in COMMANDS if c.split()[0] in SNAKEMAKE_PROGRAMS})


def documented_config_files() -> dict[str, str]:
    """The ```yaml blocks of the documents that start with ``# NAME.yaml:``, by NAME.yaml."""
    files = {}
    for doc in DOCUMENTS:
        for block in re.findall(
            r"^```yaml\n(# ([\w.-]+\.yaml):.*?)^```", doc.read_text(), re.S | re.M
        ):
            files[block[1]] = block[0]
    return files


def _mirror(base: Path) -> Path:
    """A checkout of the repository (links to its files) with ``shared`` beside it, and the
    example config files that the documents print."""
    checkout = base / "biocompact"
    checkout.mkdir(parents=True)
    for entry in REPO_ROOT.iterdir():
        if entry.name not in (".git", ".venv", "results", ".snakemake", "tests"):
            (checkout / entry.name).symlink_to(entry)
    for name, text in documented_config_files().items():
        (checkout / name).write_text(text)
    if SHARED.is_dir():
        (base / "shared").symlink_to(SHARED)
    return checkout


def _environment(command: str) -> dict[str, str]:
    """The variables that README's ``export`` lines set before ``command``."""
    env = dict(OFFLINE_ENV)
    for _, line in COMMANDS:
        if line.startswith("export "):
            env.update(item.split("=", 1) for item in shlex.split(line)[1:])
    return env


def _run(command: str, checkout: Path, dry_run: bool) -> subprocess.CompletedProcess:
    words = shlex.split(command)
    argv = [sys.executable, "-m", "snakemake", *(["-n"] if dry_run else []), *words[1:]]
    return subprocess.run(
        argv, cwd=checkout, capture_output=True, text=True, env=_environment(command), check=False
    )


def _configs_named(command: str, checkout: Path) -> dict:
    """The merged config of the command's --configfile files (config.yaml when none)."""
    words = shlex.split(command)
    files = []
    if "--configfile" in words:
        for word in words[words.index("--configfile") + 1 :]:
            if word.startswith("-"):
                break
            files.append(word)
    merged: dict = {}
    for name in files or ["config.yaml"]:
        layer_config(merged, yaml.safe_load((checkout / name).read_text()))
    return merged


def _names(config: dict, section: str) -> set[str]:
    entry = config
    for key in section.split("."):
        entry = entry.get(key) or {}
    return set(entry)


def test_every_command_is_run_by_a_test():
    unrouted = [
        (where, c)
        for where, c in COMMANDS
        if c.split()[0] not in SNAKEMAKE_PROGRAMS and not c.startswith(tuple(RUN_ELSEWHERE))
    ]
    assert unrouted == [], "add these to a test or to RUN_ELSEWHERE"
    stale = [
        prefix for prefix in RUN_ELSEWHERE if not any(c.startswith(prefix) for _, c in COMMANDS)
    ]
    assert stale == [], "RUN_ELSEWHERE lists commands no document prints any more"


@pytest.mark.parametrize("command", SNAKEMAKE_COMMANDS)
def test_snakemake_command_dry_runs_with_only_its_configs_work(tmp_path, command):
    checkout = _mirror(tmp_path)
    needs_shared = any(name in command for name in ("ncbi-disease", "benchmark.yaml", "real-small"))
    if needs_shared and not SHARED.is_dir():
        pytest.skip(f"real data not found at {SHARED}")
    if REAL_DATA_TARGET in command:  # its model is the demo's teacher, built by `make demo`
        (checkout / "results/pretraining/teacher/model").mkdir(parents=True)
        (checkout / "results/pretraining/teacher/model/config.json").write_text("{}")
    result = _run(command, checkout, dry_run=True)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    config = _configs_named(command, checkout)
    # the jobs' wildcards (a slurm dry run's warning about jobs too big for a cluster names
    # them too, "pretrain (model=bioformer-8L): asks for ...")
    jobs = "\n".join(re.findall(r"^\s+wildcards: (.*)$", result.stdout, re.M))
    for wildcard, sections in WILDCARD_NAMES.items():
        scheduled = set(re.findall(rf"\b{wildcard}=([^,\s]+)", jobs))
        allowed = set().union(*(_names(config, section) for section in sections))
        assert scheduled <= allowed, (
            f"{command}: {wildcard}s {scheduled - allowed} are not its config's"
        )


@pytest.mark.slow
def test_real_data_command_runs(tmp_path, demo_run, shared_data):
    # printed in docs (with .venv/bin/) and in the config's header: one command
    (command,) = {c.removeprefix(".venv/bin/") for c in SNAKEMAKE_COMMANDS if REAL_DATA_TARGET in c}
    checkout = _mirror(tmp_path)
    (checkout / "results/pretraining").mkdir(parents=True)
    (checkout / "results/pretraining/teacher").symlink_to(demo_run / "results/pretraining/teacher")
    # 3 of the config's 5 epochs: the miniature teacher leaves the all-O floor by the third
    # (dev entity F1 0.00, 0.05, 0.15 by epoch, test 0.156; over 5 epochs 0.16 and 0.154);
    # the command runs as printed with this one layer after its config file
    (checkout / "three-epochs.yaml").write_text("finetuning: {presets: {ncbi-check: {epochs: 3}}}")
    assert command.endswith("--configfile configs/ncbi-disease.yaml"), command
    result = _run(f"{command} three-epochs.yaml", checkout, dry_run=False)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    metrics = json.loads((checkout / REAL_DATA_TARGET).read_text())
    assert (metrics["train_examples"], metrics["test_examples"]) == (1000, 940)
    assert metrics["hyperparameters"]["epochs"] == 3
    assert metrics["metrics"]["f1"] > 0.1  # the all-O baseline scores 0


README_EXAMPLE = "snakemake --profile local --configfile my-study.yaml"


@pytest.mark.slow
def test_readme_example_learns_within_its_printed_band(tmp_path):
    """README's my-study.yaml, run as printed, scores within the band README prints."""
    readme = (REPO_ROOT / "README.md").read_text()
    assert README_EXAMPLE in {c for _, c in COMMANDS}
    low, high = map(
        float, re.search(r"median of the 5 seeds\s+between (\d+) and (\d+)", readme).groups()
    )
    checkout = _mirror(tmp_path)
    result = _run(README_EXAMPLE, checkout, dry_run=False)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    results = checkout / "results"
    seeds = [
        json.loads(
            (results / f"finetuning/minilm/gene-disease/seed{seed}/metrics.json").read_text()
        )
        for seed in range(1, 6)
    ]
    baseline = json.loads((results / "baselines/gene-disease/metrics.json").read_text())
    f1 = sorted(100 * run["metrics"]["binary_f1"] for run in seeds)
    assert low <= f1[2] <= high, f1
    assert f1[0] > 100 * baseline["metrics"]["binary_f1"] + 50, f1  # every seed leaves it
    assert (results / "report/report.html").is_file()
