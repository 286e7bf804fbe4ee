"""A real two-node Slurm cluster on this machine (tests/slurm/cluster.sh), on what only
Slurm shows. From the session's miniature demo run (its corpus kept), one run of the `slurm`
profile, sized by configs/small-cluster.yaml (the run's check of every job against sinfo
passes), trains the vocabulary and the tokenised corpus as CPU jobs, the teacher and its
distilled student on 2 nodes x 1 process (the teacher's job cancelled by `scancel` after its
first checkpoint, resubmitted and resumed), and fine-tunes the student on demo-ner as one
array job. The data jobs' files are the local run's, the two-node weights those of 1 node x
2 processes, the array job's scores those of a local run.

The cluster needs root and Debian's slurm-wlm and munge (installed when missing); without
them the tests are skipped with the reason.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from safetensors.torch import load_file
from snakemake_runs import OFFLINE_ENV, layer_config, miniature_config, planned_jobs

from biocompact.training.launch import SPEC_FILE, torchrun_command

pytestmark = pytest.mark.slow

REPO_ROOT = Path(__file__).resolve().parents[2]
CLUSTER = REPO_ROOT / "tests" / "slurm" / "cluster.sh"
RUN_TIMEOUT = 1800
CHECKPOINTS = Path("results/checkpoints/pretraining/teacher")
SMALL_CLUSTER = yaml.safe_load((REPO_ROOT / "configs" / "small-cluster.yaml").read_text())
# The test overlay of the slurm profile: this cluster's partitions, no account, the
# status command that works without an accounting database, and no job asking for more
# CPUs than the test node has.
SLURM_OVERLAY = [
    "--slurm-status-command",
    "squeue",
    "--slurm-init-seconds-before-status-checks",
    "2",
    "--seconds-between-status-checks",
    "2",
    "--slurm-no-account",
    "--max-threads",
    str(os.cpu_count()),
]
# The language models on both nodes of the test cluster's partition twonodes, one stand-in
# GPU on each; every other GPU job on the partition gpu.
SLURM_ENV = {"BIOCOMPACT_CPU_PARTITION": "cpu", "BIOCOMPACT_GPU_PARTITION": "gpu"}
TWO_NODE_JOB = {
    **SMALL_CLUSTER["pretraining"]["teacher"]["resources"],
    "nodes": 2,
    "cpus_per_gpu": 1,
}
TWO_NODE_PARTITION = "twonodes"
# What the run rebuilds: the vocabulary (and the tokenised corpus), the teacher and its
# distilled student, and the student's fine-tuning runs on demo-ner (on demo-re its first
# seed's run is compression's, a rule of its own).
REBUILT = ("vocab", "pretraining_data", "teacher", "teacher-distil", "slurm_logs")
STUDENT_RUNS = "results/finetuning/teacher-distil/demo-ner/seed{seed}/metrics.json"


def _config() -> dict:
    """The miniature demo sized for the test cluster, its language models on two nodes, for
    fewer steps (a checkpoint before the cancel, at least one after it)."""
    config = layer_config(miniature_config(), SMALL_CLUSTER)
    teacher, student = config["pretraining"]["teacher"], config["distillation"]["teacher-distil"]
    teacher.update(steps=20, warmup_steps=2, checkpoint_every=5, resources=TWO_NODE_JOB)
    student.update(steps=10, warmup_steps=1, checkpoint_every=5, resources=TWO_NODE_JOB)
    return config


def _targets(config: dict) -> list[str]:
    seeds = config["finetuning"]["seeds"]
    return ["results/distillation/teacher-distil/eval.json"] + [
        STUDENT_RUNS.format(seed=seed) for seed in seeds
    ]


def _snakemake(workdir: Path, *args: str, env: dict | None = None, background: bool = False):
    command = [
        sys.executable,
        "-m",
        "snakemake",
        "--snakefile",
        str(REPO_ROOT / "Snakefile"),
        "--configfile",
        "config.yaml",
        *args,
    ]
    environment = {**OFFLINE_ENV, **(env or {})}
    if background:
        return subprocess.Popen(
            command,
            cwd=workdir,
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
    result = subprocess.run(
        command,
        cwd=workdir,
        env=environment,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-6000:]
    return result


@pytest.fixture(scope="module")
def slurm_cluster(tmp_path_factory) -> Iterator[Path]:
    """A running two-node cluster on this machine; skips with the reason where it cannot start."""
    state = tmp_path_factory.mktemp("slurm")

    def stop() -> None:
        subprocess.run(
            ["bash", str(CLUSTER), "stop", str(state)],
            capture_output=True,
            timeout=120,
            check=False,
        )

    try:
        started = subprocess.run(
            ["bash", str(CLUSTER), "start", str(state)],
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
    except subprocess.TimeoutExpired:
        stop()
        pytest.fail("tests/slurm/cluster.sh start did not finish within 15 minutes")
    if started.returncode == 3:
        pytest.skip(f"no Slurm test cluster: {started.stderr.strip().splitlines()[-1]}")
    if started.returncode != 0:
        stop()
        pytest.fail(f"the Slurm test cluster failed to start:\n{started.stdout}\n{started.stderr}")
    yield state
    stop()


def _running_pretrain_slurm_job() -> str | None:
    listing = subprocess.run(
        ["squeue", "--noheader", "--states=RUNNING", "--format=%i|%k"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    ).stdout
    return next(
        (line.split("|")[0] for line in listing.splitlines() if "rule_pretrain" in line), None
    )


def _cancel_pretraining(snakemake: subprocess.Popen, workdir: Path) -> str:
    """``scancel`` the running pretraining job once it has written a checkpoint; say which."""
    deadline = time.monotonic() + RUN_TIMEOUT
    while not list((workdir / CHECKPOINTS).glob("step-*[0-9]")):
        assert snakemake.poll() is None, "Snakemake ended before the first checkpoint"
        assert time.monotonic() < deadline, "no checkpoint was written"
        time.sleep(0.1)
    job = _running_pretrain_slurm_job()
    assert job is not None, "the pretraining job is not running in Slurm"
    subprocess.run(["scancel", job], check=True, timeout=30)
    return f"scancel {job}"


@pytest.fixture(scope="module")
def slurm_run(slurm_cluster, demo_run, tmp_path_factory) -> tuple[Path, str, str]:
    """The working directory, the log of `snakemake --profile slurm` and how the teacher's
    job was cancelled."""
    workdir = tmp_path_factory.mktemp("slurm-dag") / "run"
    shutil.copytree(demo_run, workdir, symlinks=True, ignore=shutil.ignore_patterns(*REBUILT))
    config = _config()
    (workdir / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    planned = _snakemake(workdir, "--quiet", "rules", "--cores", "1", "-n", *_targets(config))
    for rule in ("train_vocabulary", "tokenize_corpus", "pretrain", "distill", "finetune_kept"):
        assert rule in planned.stdout, (rule, planned.stdout)
    assert "corpus_split_sentences" not in planned.stdout, planned.stdout
    env = {**SLURM_ENV, "BIOCOMPACT_GPU_PARTITION": TWO_NODE_PARTITION}
    snakemake = _snakemake(
        workdir,
        "--profile",
        str(REPO_ROOT / "slurm"),
        *SLURM_OVERLAY,
        *_targets(config),
        env=env,
        background=True,
    )
    try:
        how = _cancel_pretraining(snakemake, workdir)
        output, _ = snakemake.communicate(timeout=RUN_TIMEOUT)
    finally:
        if snakemake.poll() is None:
            os.killpg(snakemake.pid, signal.SIGTERM)
            snakemake.wait(timeout=60)
    assert snakemake.returncode == 0, output[-6000:]
    return workdir, output, how


def _weights(model_dir: Path) -> dict:
    return load_file(model_dir / "model.safetensors")


def _same_weights(first: Path, second: Path) -> bool:
    a, b = _weights(first), _weights(second)
    return a.keys() == b.keys() and all(bool((a[name] == b[name]).all()) for name in a)


def test_data_jobs_and_the_fine_tuning_array_give_the_results_of_a_local_run(
    slurm_run, demo_run, tmp_path
):
    workdir, log, _ = slurm_run
    assert "Submitted array job" in log, log[-4000:]  # fine-tuning runs as one array job
    for rule in ("train_vocabulary", "tokenize_corpus", "pretrain", "distill"):
        assert f"(Rule: {rule})" in log, rule  # the executor reports each finished job so
    # vocabulary, tokenised corpus, teacher (twice: cancelled, resubmitted), student
    assert log.count("has been submitted with SLURM jobid") == 5, log[-4000:]
    # The data jobs are deterministic: the local run's tokenizer and tokenised corpus.
    for name in _config()["vocabularies"]:
        for path in (
            f"results/vocab/{name}/tokenizer/tokenizer.json",
            f"results/pretraining_data/{name}.json",
        ):
            assert (workdir / path).read_bytes() == (demo_run / path).read_bytes(), path
    # The array job's runs score as the same runs started locally on the same models.
    local = tmp_path / "local"
    shutil.copytree(workdir, local, symlinks=True, ignore=shutil.ignore_patterns("slurm_logs"))
    runs = [STUDENT_RUNS.format(seed=seed) for seed in _config()["finetuning"]["seeds"]]
    rerun = _snakemake(
        local, "--profile", str(REPO_ROOT / "local"), "--cores", "2", "--force", *runs
    )
    # these two jobs alone (`--forcerun RULE PATHS` takes the paths as its own: the whole DAG)
    assert sum(planned_jobs(rerun).values()) == 2, rerun.stderr[-3000:]
    for path in runs:
        on_slurm, here = (json.loads((root / path).read_text()) for root in (workdir, local))
        assert on_slurm["metrics"] == here["metrics"], path


def test_cancelled_pretraining_is_resubmitted_and_resumes_from_its_checkpoint(slurm_run):
    workdir, log, how = slurm_run
    assert "Trying to restart job" in log, log[-6000:]  # the profile's preemptible-rules
    job_log = (workdir / "results/logs/pretraining/pretrain/teacher.log").read_text()
    # the log keeps the cancelled attempt and the one that resumed, each under its header
    headers = [line.split(":")[0] for line in job_log.splitlines() if line.startswith("=====")]
    assert headers == ["===== attempt 1", "===== attempt 2"], (how, job_log[-3000:])
    steps_total = _config()["pretraining"]["teacher"]["steps"]
    every = _config()["pretraining"]["teacher"]["checkpoint_every"]
    resumed = [
        int(line.rsplit(" ", 1)[1])
        for line in job_log.splitlines()
        if "resumed from checkpoint at step" in line
    ]
    assert resumed and every <= resumed[0] < steps_total, (how, job_log[-3000:])
    steps = [
        json.loads(line)["step"]
        for line in (workdir / "results/pretraining/teacher/train_log.jsonl")
        .read_text()
        .splitlines()
    ]
    assert steps == sorted(set(steps)) and steps[-1] == steps_total


def _two_node_jobs() -> dict[str, str]:
    """Rule name -> node list of every job of the partition twonodes that squeue still shows
    (finished jobs included: MinJobAge)."""
    listing = subprocess.run(
        [
            "squeue",
            "--noheader",
            "--states=all",
            f"--partition={TWO_NODE_PARTITION}",
            "--format=%k|%N",
        ],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    ).stdout
    return dict(line.split("|") for line in listing.splitlines())


def _one_node_reference(workdir: Path, stage: str, name: str, module: str, out: Path) -> Path:
    """Run the job that Slurm ran on two nodes (its spec file) again as 1 node x 2 processes
    (torchrun --standalone, gloo), its outputs under ``out``; return its model folder."""
    spec = json.loads((workdir / f"results/checkpoints/{stage}/{name}" / SPEC_FILE).read_text())
    out.mkdir(parents=True)
    spec["outputs"] = {
        "model": str(out / "model"),
        "log": str(out / "train_log.jsonl"),
        "eval": str(out / "eval.json"),
    }
    spec["checkpoint_dir"] = str(out / "checkpoints")
    (out / SPEC_FILE).write_text(json.dumps(spec))
    result = subprocess.run(
        torchrun_command(module, out / SPEC_FILE, processes=2),
        cwd=workdir,
        env={**os.environ, "OMP_NUM_THREADS": "1", "CUDA_VISIBLE_DEVICES": ""},
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return out / "model"


def test_two_nodes_train_the_weights_of_one_node_with_two_processes(slurm_run, tmp_path):
    workdir, _, how = slurm_run
    nodes = {
        rule: node_list
        for comment, node_list in _two_node_jobs().items()
        for rule in ("pretrain", "distill")
        if f"rule_{rule}_" in comment
    }
    host = socket.gethostname().split(".")[0]
    assert nodes == dict.fromkeys(("pretrain", "distill"), f"{host},{host}-2"), nodes
    for stage, rule, name, module in [
        ("pretraining", "pretrain", "teacher", "biocompact.pretraining.run"),
        ("distillation", "distill", "teacher-distil", "biocompact.distillation.run"),
    ]:
        job_log = (workdir / f"results/logs/{stage}/{rule}/{name}.log").read_text()
        assert "srun --nodes=2 --ntasks=2 --ntasks-per-node=1" in job_log, job_log[-3000:]
        assert "--nnodes=2 --nproc_per_node=1 --rdzv_backend=c10d" in job_log, job_log[-3000:]
        one_node = _one_node_reference(workdir, stage, name, module, tmp_path / "one-node" / name)
        assert _same_weights(workdir / f"results/{stage}/{name}/model", one_node), (name, how)
