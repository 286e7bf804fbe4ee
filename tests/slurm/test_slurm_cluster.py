"""A real two-node Slurm cluster on this machine (tests/slurm/cluster.sh): the demo DAG
through the project's `slurm` profile gives the same results as a local run, a pretraining
job cancelled by Slurm is resubmitted and continues from its checkpoint, and a teacher and a
student trained on 2 nodes x 1 process (the teacher's job cancelled and resumed on 2 nodes)
have the weights of 1 node x 2 processes.

The cluster needs root and Debian's slurm-wlm and munge (installed when missing); without
them the DAG test is skipped with the reason and the kill test kills the job's process
instead, then runs Snakemake again (a local run retries nothing). The demo config with the
job sizes of configs/small-cluster.yaml (which fit this machine's nodes: the run's check of
every job against sinfo passes) and fewer steps, 2 seeds and 1 epoch, without task
distillation and compression, keeps the runs short.
"""

from __future__ import annotations

import gzip
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
from snakemake_runs import layer_config

from biocompact.training.launch import SPEC_FILE, torchrun_command

pytestmark = pytest.mark.slow

REPO_ROOT = Path(__file__).resolve().parents[2]
CLUSTER = REPO_ROOT / "tests" / "slurm" / "cluster.sh"
RUN_TIMEOUT = 3600  # the DAG through Slurm took 25 min 18 s on a 2-core machine at load 12-15
PRETRAIN_STEPS, CHECKPOINT_EVERY = 40, 10
CHECKPOINTS = Path("results/checkpoints/pretraining/teacher")
SMALL_CLUSTER = yaml.safe_load((REPO_ROOT / "configs" / "small-cluster.yaml").read_text())
SMALL_JOB = SMALL_CLUSTER["pretraining"]["teacher"]["resources"]
# The test overlay of the slurm profile: this cluster's partitions, no account, the
# status command that works without an accounting database, and no job asking for more
# CPUs than the test node has.
SLURM_OVERLAY = [
    "--slurm-status-command",
    "squeue",
    "--slurm-init-seconds-before-status-checks",
    "2",
    "--slurm-no-account",
    "--max-threads",
    str(os.cpu_count()),
]
SLURM_ENV = {"BIOCOMPACT_CPU_PARTITION": "cpu", "BIOCOMPACT_GPU_PARTITION": "gpu"}
# A job on both nodes of the test cluster's partition twonodes, one stand-in GPU on each.
TWO_NODE_JOB = {**SMALL_JOB, "nodes": 2, "cpus_per_gpu": 1}


def _overlay_config() -> dict:
    config = layer_config(yaml.safe_load((REPO_ROOT / "config.yaml").read_text()), SMALL_CLUSTER)
    for model in config["pretraining"].values():
        model.update(
            steps=PRETRAIN_STEPS, warmup_steps=4, log_every=5, checkpoint_every=CHECKPOINT_EVERY
        )
    for model in config["distillation"].values():
        model.update(steps=20, warmup_steps=2, log_every=5, checkpoint_every=10)
    config["finetuning"]["seeds"] = [1, 2]
    for preset in config["finetuning"]["presets"].values():
        preset["epochs"] = 1
    # Task distillation and compression run their jobs as fine-tuning's do (tests of their
    # own cover them): left out here, they would add 17 of the DAG's 57 jobs, each a
    # submission and a status check.
    config["task_distillation"] = config["compression"] = {}
    config["efficiency"] = {"batch_sizes": [1], "sequence_lengths": [32], "repeats": 1}
    return config


def _workdir(folder: Path) -> Path:
    shutil.copytree(REPO_ROOT / "demo", folder / "demo")
    (folder / "config.yaml").write_text(yaml.safe_dump(_overlay_config(), sort_keys=False))
    return folder


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
    environment = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
        **(env or {}),
    }
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


def _slurm_args() -> list[str]:
    return ["--profile", str(REPO_ROOT / "slurm"), *SLURM_OVERLAY]


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


@pytest.fixture(scope="module")
def local_run(tmp_path_factory) -> Path:
    workdir = _workdir(tmp_path_factory.mktemp("local"))
    _snakemake(workdir, "--profile", str(REPO_ROOT / "local"), "--cores", "2")
    return workdir


@pytest.fixture(scope="module")
def slurm_run(slurm_cluster, tmp_path_factory) -> tuple[Path, str]:
    """The working directory and the log of `snakemake --profile slurm` on the overlay."""
    workdir = _workdir(tmp_path_factory.mktemp("slurm-dag"))
    result = _snakemake(workdir, *_slurm_args(), env=SLURM_ENV)
    return workdir, result.stdout + result.stderr


def _weights(model_dir: Path) -> dict:
    return load_file(model_dir / "model.safetensors")


def _same_weights(first: Path, second: Path) -> bool:
    a, b = _weights(first), _weights(second)
    return a.keys() == b.keys() and all(bool((a[name] == b[name]).all()) for name in a)


def test_slurm_dag_gives_the_results_of_a_local_run(slurm_run, local_run):
    slurm_dir, log = slurm_run
    assert "Submitted array job" in log, log[-4000:]  # fine-tuning runs as one array job
    for rule in ("corpus_parse_pubmed", "train_vocabulary", "pretrain", "distill", "report"):
        assert f"(Rule: {rule})" in log, rule  # the executor reports each finished job so
    assert log.count("has been submitted with SLURM jobid") >= 10, log[-4000:]
    # Every stage is deterministic, so both runs give the same bytes, weights and scores.
    for path in sorted((local_run / "results/corpus/sentences").glob("*.txt.gz")):
        assert gzip.decompress(
            (slurm_dir / path.relative_to(local_run)).read_bytes()
        ) == gzip.decompress(path.read_bytes())
    config = _overlay_config()
    for name in config["vocabularies"]:
        tokenizer = f"results/vocab/{name}/tokenizer/tokenizer.json"
        assert (slurm_dir / tokenizer).read_text() == (local_run / tokenizer).read_text(), name
    for stage, name in [
        (section, entry) for section in ("pretraining", "distillation") for entry in config[section]
    ]:
        model = f"results/{stage}/{name}/model"
        assert _same_weights(slurm_dir / model, local_run / model), name
    for model in config["finetuning"]["models"]:
        for task in config["finetuning"]["tasks"]:
            for seed in config["finetuning"]["seeds"]:
                path = f"results/finetuning/{model}/{task}/seed{seed}/metrics.json"
                on_slurm, here = (
                    json.loads((root / path).read_text()) for root in (slurm_dir, local_run)
                )
                assert on_slurm["metrics"] == here["metrics"], path
    assert (slurm_dir / "results/report/report.html").stat().st_size > 0


def _descendants(pid: int) -> list[int]:
    children: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            continue
    return children + [grandchild for child in children for grandchild in _descendants(child)]


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


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


def _kill_pretraining(snakemake: subprocess.Popen, workdir: Path, through_slurm: bool) -> str:
    """Kill the running pretraining job once it has written a checkpoint; say how."""
    deadline = time.monotonic() + RUN_TIMEOUT
    while not list((workdir / CHECKPOINTS).glob("step-*[0-9]")):
        assert snakemake.poll() is None, "Snakemake ended before the first checkpoint"
        assert time.monotonic() < deadline, "no checkpoint was written"
        time.sleep(0.1)
    if through_slurm:
        job = _running_pretrain_slurm_job()
        assert job is not None, "the pretraining job is not running in Slurm"
        subprocess.run(["scancel", job], check=True, timeout=30)
        return f"scancel {job}"
    victims = [pid for pid in _descendants(snakemake.pid) if "pretrain" in _cmdline(pid)]
    assert victims, "no pretraining process found"
    for pid in victims:
        os.kill(pid, signal.SIGKILL)
    return f"kill -9 {victims}"


def test_killed_pretraining_is_resubmitted_and_resumes_from_its_checkpoint(
    local_run, request, tmp_path
):
    try:
        request.getfixturevalue("slurm_cluster")
        through_slurm, args, env = True, _slurm_args(), SLURM_ENV
    except pytest.skip.Exception:
        through_slurm, args, env = (
            False,
            ["--profile", str(REPO_ROOT / "local"), "--cores", "2"],
            {},
        )
    # the local run up to the tokenised corpus, without the teacher's outputs and checkpoints
    workdir = tmp_path / "kill"
    shutil.copytree(
        local_run, workdir, symlinks=True, ignore=shutil.ignore_patterns("teacher", "slurm_logs")
    )
    target = "results/pretraining/teacher/eval.json"
    planned = _snakemake(workdir, "--quiet", "rules", "--cores", "1", "--dry-run", target).stdout
    assert (
        "pretrain" in planned and "tokenize_corpus" not in planned and "distill" not in planned
    ), planned

    snakemake = _snakemake(workdir, *args, target, env=env, background=True)
    try:
        how = _kill_pretraining(snakemake, workdir, through_slurm)
        output, _ = snakemake.communicate(timeout=RUN_TIMEOUT)
    finally:
        if snakemake.poll() is None:
            os.killpg(snakemake.pid, signal.SIGTERM)
            snakemake.wait(timeout=60)
    if through_slurm:  # the slurm profile resubmits it (preemptible-rules)
        assert snakemake.returncode == 0, output[-6000:]
        assert "Trying to restart job" in output, output[-6000:]
    else:  # a local run retries nothing: started again, the job resumes
        assert snakemake.returncode != 0, output[-6000:]
        assert "Trying to restart job" not in output, output[-6000:]
        _snakemake(workdir, *args, target, env=env)

    job_log = (workdir / "results/logs/pretraining/pretrain/teacher.log").read_text()
    # the log keeps the killed attempt and the one that resumed, each under its header
    headers = [line.split(":")[0] for line in job_log.splitlines() if line.startswith("=====")]
    assert headers == ["===== attempt 1", "===== attempt 2"], (how, job_log[-3000:])
    resumed = [
        int(line.rsplit(" ", 1)[1])
        for line in job_log.splitlines()
        if "resumed from checkpoint at step" in line
    ]
    assert resumed and CHECKPOINT_EVERY <= resumed[0] < PRETRAIN_STEPS, (how, job_log[-3000:])
    steps = [
        json.loads(line)["step"]
        for line in (workdir / "results/pretraining/teacher/train_log.jsonl")
        .read_text()
        .splitlines()
    ]
    assert steps == sorted(set(steps)) and steps[-1] == PRETRAIN_STEPS
    # the resumed run ends exactly where the uninterrupted one did
    assert _same_weights(
        workdir / "results/pretraining/teacher/model",
        local_run / "results/pretraining/teacher/model",
    ), how


def _two_node_jobs() -> dict[str, str]:
    """Rule name -> node list of every job of the partition twonodes that squeue still shows
    (finished jobs included: MinJobAge)."""
    listing = subprocess.run(
        ["squeue", "--noheader", "--states=all", "--partition=twonodes", "--format=%k|%N"],
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


def test_two_nodes_train_the_weights_of_one_node_with_two_processes(
    slurm_cluster, local_run, tmp_path
):
    # the local run up to the tokenised corpus, teacher and student trained again on 2 nodes;
    # the teacher's job is cancelled once, resubmitted and resumed from its checkpoint
    workdir = tmp_path / "two-nodes"
    shutil.copytree(
        local_run,
        workdir,
        symlinks=True,
        ignore=shutil.ignore_patterns("teacher", "teacher-distil", "slurm_logs"),
    )
    config = _overlay_config()
    config["pretraining"]["teacher"]["resources"] = TWO_NODE_JOB
    config["distillation"]["teacher-distil"]["resources"] = TWO_NODE_JOB
    (workdir / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    target = "results/distillation/teacher-distil/eval.json"
    env = {**SLURM_ENV, "BIOCOMPACT_GPU_PARTITION": "twonodes"}
    snakemake = _snakemake(workdir, *_slurm_args(), target, env=env, background=True)
    try:  # the teacher's job cancelled after its first checkpoint, as in the one-node test
        how = _kill_pretraining(snakemake, workdir, through_slurm=True)
        output, _ = snakemake.communicate(timeout=RUN_TIMEOUT)
    finally:
        if snakemake.poll() is None:
            os.killpg(snakemake.pid, signal.SIGTERM)
            snakemake.wait(timeout=60)
    assert snakemake.returncode == 0, output[-6000:]
    assert "Trying to restart job" in output and "(Rule: distill)" in output, output[-6000:]
    assert (
        "resumed from checkpoint at step"
        in (workdir / "results/logs/pretraining/pretrain/teacher.log").read_text()
    ), how
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
        assert _same_weights(workdir / f"results/{stage}/{name}/model", one_node), name
