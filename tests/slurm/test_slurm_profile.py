"""The `slurm` profile on a real-scale config, without a cluster: a dry run lists every job's
resources and threads, and the Slurm plugin's own code turns them into the sbatch options
each job would be submitted with (GPUs, CPUs, memory, time limit, partition, account).
Run with `pytest -s` to see them.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
import yaml
from snakemake_executor_plugin_slurm.submit_string import get_submit_command
from snakemake_executor_plugin_slurm.utils import set_gres_string
from snakemake_runs import SNAKEMAKE

REPO_ROOT = Path(__file__).resolve().parents[2]
REAL_SCALE = REPO_ROOT / "configs" / "pubmed-full.yaml"
JOB_HEADER = re.compile(r"^rule (\w+):$")


class Resources(dict):
    """A job's resources as the plugin reads them (``.get`` and attribute access)."""

    __getattr__ = dict.__getitem__


class PlannedJob:
    """What the plugin needs of a job to build its sbatch command."""

    def __init__(self, rule: str, wildcards: str, threads: int, resources: dict) -> None:
        self.name = rule
        self.wildcards = wildcards
        self.threads = threads
        self.resources = Resources(resources)

    def sbatch(self) -> str:
        """The sbatch options the Slurm plugin would submit this job with."""
        params = {
            "run_uuid": "RUN",
            "slurm_logfile": "LOG",
            "comment_str": "COMMENT",
            "account": f"-A {self.resources['slurm_account']}"
            if "slurm_account" in self.resources
            else "",
            "partition": f"-p {self.resources['slurm_partition']}",
            "workdir": None,
        }
        command = get_submit_command(self, params) + set_gres_string(self)
        return command.split("--comment COMMENT", 1)[1].strip()


def _value(text: str) -> int | str:
    return int(text) if text.isdigit() else text


# Snakemake on the repository's Snakefile with the slurm profile
SLURM_SNAKEMAKE = [*SNAKEMAKE, "--profile", str(REPO_ROOT / "slurm")]


def dry_run(
    workdir: Path, *overlays: Path, options: tuple[str, ...] = (), **environment: str
) -> list[PlannedJob]:
    """Every job of a `snakemake --profile slurm -n` on the real-scale config and the config
    files ``overlays`` (threads not capped by the dry run's cores, as on a cluster), with
    Snakemake ``options``."""
    result = subprocess.run(
        [
            *SLURM_SNAKEMAKE,
            "--configfile",
            str(REAL_SCALE),
            *map(str, overlays),
            "--directory",
            str(workdir),
            "--dry-run",
            "--cores",
            "1024",
            *options,
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=workdir,
        env={**os.environ, **environment},
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    jobs, rule, fields = [], None, {}
    for line in result.stdout.splitlines():
        if match := JOB_HEADER.match(line):
            rule, fields = match.group(1), {}
        elif rule and ":" in line:
            key, value = (part.strip() for part in line.split(":", 1))
            fields[key] = value
            if key == "resources":
                pairs = (item.split("=", 1) for item in value.split(", "))
                jobs.append(
                    PlannedJob(
                        rule,
                        fields.get("wildcards", ""),
                        int(fields.get("threads", 1)),
                        {name: _value(amount) for name, amount in pairs},
                    )
                )
                rule = None
    return jobs


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    """A working directory for the real-scale config (its tasks name registered datasets,
    which the DAG downloads and prepares itself)."""
    return tmp_path_factory.mktemp("real-scale")


@pytest.fixture(scope="module")
def planned(workdir) -> dict[str, list[PlannedJob]]:
    jobs: dict[str, list[PlannedJob]] = {}
    for job in dry_run(workdir):
        jobs.setdefault(job.name, []).append(job)
    print(
        "\n".join(
            f"{job.name}[{job.wildcards}]: sbatch {job.sbatch()}"
            for group in jobs.values()
            for job in group[:1]
        )
    )
    return jobs


def test_pretraining_is_one_multi_gpu_task_on_one_node(planned):
    (job,) = planned["pretrain"]
    options = job.sbatch()
    for option in (
        "-p gpu",
        "--gpus=4",
        "--cpus-per-gpu=8",
        "--mem 128000",
        "-t 2880",
        "--nodes=1",
    ):
        assert option in options, (option, options)
    assert "--ntasks-per-gpu" not in options and "--cpus-per-task" not in options, options


def test_distillation_and_fine_tuning_request_their_own_gpus(planned):
    (distill,) = planned["distill"]
    assert {"--gpus=2", "--cpus-per-gpu=8", "--nodes=1"} <= set(distill.sbatch().split())
    assert "-t 1440" in distill.sbatch() and "--mem 64000" in distill.sbatch()
    finetune = planned["finetune"]
    assert len(finetune) == 2 * 3 * 5
    for job in finetune:
        options = job.sbatch()
        assert {"--gpus=1", "--cpus-per-gpu=4", "--nodes=1"} <= set(options.split()), options
        assert "-p gpu" in options and "--mem 16000" in options and "-t 240" in options


def test_cpu_rules_go_to_the_cpu_partition_with_their_threads(planned):
    for rule in (
        "corpus_parse_pubmed",
        "corpus_split_sentences",
        "train_vocabulary",
        "tokenize_corpus",
        "aggregate",
        "report",
        "efficiency",
    ):
        job = planned[rule][0]
        options = job.sbatch()
        assert "-p cpu" in options and "--gpus" not in options, (rule, options)
        assert f"--cpus-per-task={job.threads}" in options, (rule, options)
        assert re.search(r"-t \d+", options), options
        # the vocabulary's memory follows its shards' words: known once they exist
        memory = "<TBD>" if rule == "train_vocabulary" else r"\d+"
        assert re.search(rf"--mem {memory}", options), options
    assert planned["train_vocabulary"][0].threads == 2
    tokenize = planned["tokenize_corpus"][0]  # data_jobs of configs/pubmed-full.yaml
    assert tokenize.threads == 32 and "--mem 21200" in tokenize.sbatch()
    assert planned["efficiency"][0].threads == 4  # the profile's, not every core of the login node


def test_no_job_asks_slurm_for_more_cpus_than_max_threads_gives_it(workdir):
    """--max-threads 8 caps the threads of every job, and the CPUs each asks Slurm for with
    them: 8 processes tokenise (2000 + 8 x 600 MB), 4 GPUs get 2 CPUs each, 2 GPUs 4."""
    by_rule = {job.name: job for job in dry_run(workdir, options=("--max-threads", "8"))}
    tokenize = by_rule["tokenize_corpus"]
    assert tokenize.threads == 8
    assert {"--cpus-per-task=8", "6800"} <= set(tokenize.sbatch().split())
    assert "--cpus-per-gpu=2" in by_rule["pretrain"].sbatch()  # 4 GPUs x 8 CPUs asked
    assert "--cpus-per-gpu=4" in by_rule["distill"].sbatch()  # 2 GPUs x 8 CPUs asked
    assert "--cpus-per-gpu=4" in by_rule["finetune"].sbatch()  # 1 GPU x 4 CPUs: as asked
    for job in by_rule.values():
        assert job.threads <= 8, job.name


def test_the_compression_timing_job_takes_the_profiles_threads(workdir, tmp_path):
    """Like the efficiency job: 4 CPUs on the CPU partition, not every core of the login node."""
    section = {"models": ["bioformer-8L-distil"], "tasks": ["ncbi-disease"]}
    override = tmp_path / "compression.yaml"
    override.write_text(yaml.safe_dump({"compression": section}))
    [job] = [job for job in dry_run(workdir, override) if job.name == "evaluate_compressed"]
    assert job.threads == 4
    assert {"-p", "cpu", "--cpus-per-task=4"} <= set(job.sbatch().split()), job.sbatch()


def test_partition_and_account_come_from_the_one_documented_place(workdir):
    jobs = dry_run(
        workdir,
        BIOCOMPACT_GPU_PARTITION="a100",
        BIOCOMPACT_CPU_PARTITION="short",
        BIOCOMPACT_SLURM_ACCOUNT="bionlp",
    )
    by_rule = {job.name: job for job in jobs}
    assert "-A bionlp -p a100" in by_rule["pretrain"].sbatch()
    assert "-A bionlp -p short" in by_rule["corpus_parse_pubmed"].sbatch()


def rule_scripts() -> dict[str, Path]:
    """Every rule's script, read from workflow/rules (a ``use rule A as B`` rule runs A's)."""
    scripts, copies, rule = {}, {}, None
    for path in sorted((REPO_ROOT / "workflow" / "rules").glob("*.smk")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if match := re.match(r"^rule (\w+):", line):
                rule = match.group(1)
            elif match := re.match(r"^use rule (\w+) as (\w+)", line):
                copies[match.group(2)] = match.group(1)
            elif rule and (match := re.search(r'"\.\./\.\./(scripts/\w+\.py)"', line)):
                scripts[rule] = REPO_ROOT / match.group(1)
    return {**scripts, **{copy: scripts[original] for copy, original in copies.items()}}


def requested_gpus(resources: dict) -> int:
    """Every GPU a job asks Slurm for: ``--gpus=G``, or ``--gres=gpu:G`` on each of ``--nodes``."""
    if resources.get("gpu"):
        return resources["gpu"]
    gres = resources.get("gres", "")
    return int(gres.rsplit(":", 1)[1]) * resources["nodes"] if gres.startswith("gpu:") else 0


# The rule entry points that train through ``biocompact.training.launch.launch``: one
# process per GPU of each node.
LAUNCHING_RULES = (
    ("biocompact.pretraining.rules", "pretrain"),
    ("biocompact.distillation.rules", "distill"),
    ("biocompact.task_distillation.rules", "finetune_teacher"),
    ("biocompact.task_distillation.rules", "train_students"),
)


def training_processes(script: Path, resources: dict) -> int:
    """The training processes a job of ``script`` starts: one per GPU of each node through
    the launcher (``biocompact.training.launch.launch``, which the rule entry points of
    ``LAUNCHING_RULES`` call), else one."""
    text = script.read_text("utf-8")
    launches = any(f"from {module} import {rule}\n" in text for module, rule in LAUNCHING_RULES)
    if not launches:
        return 1
    return max(resources["gpus_per_node"], 1) * resources.get("nodes", 1)


def gpu_table(planned: dict[str, list[PlannedJob]]) -> dict[str, tuple[int, int]]:
    """Each GPU rule's GPUs and training processes, checking that every GPU trains."""
    scripts = rule_scripts()
    table = {}
    for rule, jobs in planned.items():
        for job in jobs:
            gpus = requested_gpus(job.resources)
            if not gpus:
                continue
            processes = training_processes(scripts[rule], job.resources)
            table[rule] = (gpus, processes)
            assert gpus <= processes, (
                f"{rule}[{job.wildcards}] asks for {gpus} GPUs, uses {processes}"
            )
    print(
        "\n".join(
            f"{rule}: {gpus} GPUs, {processes} processes"
            for rule, (gpus, processes) in table.items()
        )
    )
    return table


def test_every_gpu_a_job_asks_for_trains(planned, planned_on_two_nodes):
    table = gpu_table(planned)
    assert table["pretrain"] == (4, 4) and table["distill"] == (2, 2)
    assert table["finetune"] == (1, 1)
    table = gpu_table(planned_on_two_nodes)
    assert table["pretrain"] == (8, 8) and table["distill"] == (4, 4)


def test_task_distillation_trains_on_its_gpus_and_runs_inference_on_one(workdir):
    """With task_distillation.resources.gpus 2 the teacher and the students train on both
    GPUs; the soft labels and the untrained students (inference alone) ask for one."""
    overlay = workdir / "task-distillation.yaml"
    re_files = REPO_ROOT / "demo" / "tasks" / "re"
    overlay.write_text(
        "finetuning:\n"
        "  tasks:\n"
        f"    demo-re: {{family: re, format: biobert_tsv, train: {re_files / 'train.tsv'},\n"
        f"              test: {re_files / 'test.tsv'}, metric: binary_f1, preset: ner}}\n"
        "task_distillation:\n"
        "  resources: {gpus: 2, cpus_per_gpu: 8, mem_mb: 64000, runtime: 240}\n"
        "  transfer_sets:\n"
        "    general-random:\n"
        f"      randomised: {{source: {REPO_ROOT / 'demo/general/passages.txt'}, examples: 200}}\n"
        "  experiments:\n"
        "    re-extraction: {task: demo-re, teacher: bioformer-8L, student: bioformer-8L-distil,\n"
        "                    transfer: [general-random]}\n"
    )
    jobs: dict[str, list[PlannedJob]] = {}
    for job in dry_run(workdir, overlay):
        jobs.setdefault(job.name, []).append(job)
    table = gpu_table(jobs)
    assert table["finetune_teacher"] == (2, 2) and table["train_students"] == (2, 2)
    assert table["soft_labels"] == (1, 1) and table["untrained_students"] == (1, 1)


@pytest.fixture(scope="module")
def planned_on_two_nodes(workdir) -> dict[str, list[PlannedJob]]:
    """The real-scale config with its teacher and student on two nodes each."""
    overlay = workdir / "two-nodes.yaml"
    overlay.write_text(
        "pretraining:\n"
        "  bioformer-8L:\n"
        "    resources: {nodes: 2, gpus: 4, cpus_per_gpu: 8, mem_mb: 128000, runtime: 2880}\n"
        "distillation:\n"
        "  bioformer-8L-distil:\n"
        "    resources: {nodes: 2, gpus: 2, cpus_per_gpu: 8, mem_mb: 64000, runtime: 1440}\n"
    )
    jobs: dict[str, list[PlannedJob]] = {}
    for job in dry_run(workdir, overlay):
        jobs.setdefault(job.name, []).append(job)
    print(f"pretrain on 2 nodes: sbatch {jobs['pretrain'][0].sbatch()}")
    return jobs


def test_a_job_on_two_nodes_is_one_task_per_node_with_its_gpus_on_each(planned_on_two_nodes):
    (job,) = planned_on_two_nodes["pretrain"]
    options = job.sbatch().split()
    for option in (
        "--nodes=2",
        "--ntasks=2",
        "--gres=gpu:4",
        "--cpus-per-gpu=8",
        "--mem",
        "128000",
        "-t",
        "2880",
    ):
        assert option in options, (option, options)
    assert not [option for option in options if option.startswith(("--gpus", "--ntasks-per"))]
    # the plugin's job step runs an `mpi` job's script without srun, on the first node
    assert job.resources["mpi"] == "srun" and job.resources["gpus_per_node"] == 4
    (distill,) = planned_on_two_nodes["distill"]
    assert {"--nodes=2", "--ntasks=2", "--gres=gpu:2"} <= set(distill.sbatch().split())
    for finetune in planned_on_two_nodes["finetune"]:
        assert "mpi" not in finetune.resources and "--nodes=1" in finetune.sbatch()


def _gpu_rules() -> set[str]:
    """The rules whose resources come from a config `resources` block (gpu_job_resources),
    and the rules declared with `use rule ... as` from them."""
    rules: set[str] = set()
    aliases: list[tuple[str, str]] = []
    for path in (REPO_ROOT / "workflow/rules").glob("*.smk"):
        text = path.read_text()
        for match in re.finditer(r"^rule (\w+):\n(.*?)(?=^\S)", text + "\nend", re.M | re.S):
            if "gpu_job_resources(" in match.group(2):
                rules.add(match.group(1))
        aliases += re.findall(r"^use rule (\w+) as (\w+)", text, re.M)
    return rules | {alias for rule, alias in aliases if rule in rules}


def test_every_gpu_rule_goes_to_the_gpu_partition_and_fine_tuning_to_arrays():
    profile = yaml.safe_load((REPO_ROOT / "slurm/config.yaml").read_text())
    gpu_rules = _gpu_rules()
    assert {"pretrain", "finetune_kept", "train_students", "untrained_students"} <= gpu_rules
    assert set(profile["set-resources"]) == gpu_rules
    for rule in gpu_rules:
        assert profile["set-resources"][rule] == {
            "slurm_partition": "?GPU_PARTITION",
            "tasks_per_gpu": 0,
        }, rule
    arrays = {rule.strip() for rule in profile["slurm-array-jobs"].split(",")}
    assert arrays == {"finetune", "finetune_kept"}


# A cluster of two 2-CPU, 8000 MB nodes (the default partition cpu) and two more with 2 GPUs
# each (gpu, 24 hours at most), as sinfo lists it; the other Slurm commands record their
# call and fail, so that no job is submitted.
FAKE_SINFO = "cpu*|2|8000|(null)|2|infinite\ngpu|2|8000|gpu:2|2|1-00:00:00\n"
SLURM_COMMANDS = ("sbatch", "squeue", "sacct", "scontrol", "sacctmgr", "scancel")


def _run_on_fake_cluster(folder: Path, *args: str) -> tuple[subprocess.CompletedProcess, str]:
    """`snakemake --profile slurm ARGS` in ``folder`` with the fake cluster's commands first on
    PATH; the result and the Slurm commands it called."""
    bin_dir, calls = folder / "fake-slurm", folder / "calls.log"
    bin_dir.mkdir()
    (bin_dir / "sinfo").write_text(f"#!/bin/sh\necho sinfo >> {calls}\nprintf '{FAKE_SINFO}'\n")
    for command in SLURM_COMMANDS:
        (bin_dir / command).write_text(f"#!/bin/sh\necho {command} >> {calls}\nexit 1\n")
    for script in bin_dir.iterdir():
        script.chmod(0o755)
    # status checks from the first second (the executor waits 40 s by default, also to stop)
    checks = ["--slurm-init-seconds-before-status-checks", "1"]
    result = subprocess.run(
        [*SLURM_SNAKEMAKE, "--slurm-no-account", *checks, *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=folder,
        env={
            **os.environ,
            "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
            "BIOCOMPACT_CPU_PARTITION": "cpu",
            "BIOCOMPACT_GPU_PARTITION": "gpu",
        },
        timeout=600,
    )
    return result, calls.read_text() if calls.exists() else ""


def test_jobs_no_node_can_run_stop_the_run_before_any_is_submitted(tmp_path):
    result, calls = _run_on_fake_cluster(tmp_path, "--configfile", str(REAL_SCALE))
    output = result.stdout + result.stderr
    assert result.returncode != 0, output[-3000:]
    assert "5 job(s) ask Slurm for more than their partition can ever give" in output, output
    for line in (
        "tokenize_corpus (vocab=pubmed-uncased): asks for 32 CPUs, 21200 MB, 120 min; partition "
        "'cpu' has 2 nodes of at most 2 CPUs, 8000 MB, 0 GPUs, time limit none",
        "pretrain (model=bioformer-8L): asks for 32 CPUs, 128000 MB, 4 GPUs, 2880 min; "
        "partition 'gpu' has 2 nodes of at most 2 CPUs, 8000 MB, 2 GPUs, time limit 1440 min",
        "distill (model=bioformer-8L-distil): asks for 16 CPUs, 64000 MB, 2 GPUs, 1440 min",
        "finetune (model=",
        "efficiency: asks for 4 CPUs, 8000 MB, 60 min; partition 'cpu'",
    ):
        assert line in output, (line, output[-3000:])
    assert "sinfo" in calls and "sbatch" not in calls, calls


def test_the_demo_sized_for_a_small_cluster_fits_it(tmp_path, repo_root):
    """configs/small-cluster.yaml over the demo, --max-threads 2: every job fits a node of 2
    CPUs and 8000 MB, so the run goes on to submit its first job (which the fake sbatch
    refuses; one job at a time, so that the run stops there instead of after each refusal)."""
    (tmp_path / "demo").symlink_to(repo_root / "demo")
    result, calls = _run_on_fake_cluster(
        tmp_path,
        "--jobs",
        "1",
        "--max-threads",
        "2",
        "--configfile",
        str(repo_root / "config.yaml"),
        str(repo_root / "configs" / "small-cluster.yaml"),
    )
    output = result.stdout + result.stderr
    assert "ask Slurm for more than their partition" not in output, output[-3000:]
    assert "sinfo" in calls and "sbatch" in calls, (calls, output[-3000:])


@pytest.mark.parametrize("dry", [True, False], ids=["dry run", "real run"])
def test_a_dry_run_prints_as_a_warning_what_the_real_run_stops_with(tmp_path, repo_root, dry):
    """The demo sized for a small cluster, without --max-threads: the timing jobs keep the
    profile's 4 threads (set-threads), more than a node's 2 CPUs. The real run stops with the
    two lines; a dry run (no --cores: the profile leaves the threads unbounded, as a real run
    has them) prints the same lines as a warning and goes on; neither submits a job."""
    (tmp_path / "demo").symlink_to(repo_root / "demo")
    configs = [str(repo_root / "config.yaml"), str(repo_root / "configs" / "small-cluster.yaml")]
    result, calls = _run_on_fake_cluster(
        tmp_path, *(["-n"] if dry else []), "--configfile", *configs
    )
    output = result.stdout + result.stderr
    node = "partition 'cpu' has 2 nodes of at most 2 CPUs, 8000 MB, 0 GPUs, time limit none"
    for line in (
        "2 job(s) ask Slurm for more than their partition can ever give",
        f"\n  efficiency: asks for 4 CPUs, 8000 MB, 60 min; {node}\n",
        "\n  evaluate_compressed (model=teacher-distil, task=demo-re, seed=1): asks for 4 CPUs, "
        f"8000 MB, 60 min; {node}\n",
    ):
        assert line in output, (line, output[-3000:])
    assert ("A real run stops here; this dry run goes on." in output) == dry
    assert (result.returncode == 0) == dry, output[-3000:]
    assert "sinfo" in calls and "sbatch" not in calls, calls
