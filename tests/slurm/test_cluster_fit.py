"""Jobs that no node of their partition can run are named before any is submitted
(biocompact.workflow.cluster_fit): sinfo's columns read by hand, requests as the Slurm plugin
submits them, and the message; a dry run warns with it."""

from __future__ import annotations

import logging
from types import SimpleNamespace

import pytest
from snakemake_interface_logger_plugins.common import LogEvent

from biocompact.workflow import cluster_fit
from biocompact.workflow.cluster_fit import (
    DryRunFitCheck,
    NodeGroup,
    check_jobs_fit,
    gpus_of_gres,
    job_request,
    parse_sinfo,
    submitted_requests,
    time_limit_minutes,
    unfit_jobs,
)

# Two CPU nodes of 2 CPUs and 7000 MB (the default partition), one GPU node with 2 GPUs and
# 64 CPUs, one with 4 GPUs and 32 CPUs, a 24-hour limit on the GPU partition.
SINFO = "cpu*|2|7000|(null)|2|infinite\ngpu|64|512000|gpu:a100:2(S:0-1)|1|1-00:00:00\ngpu|32|256000|gpu:4|1|1-00:00:00\n"


@pytest.mark.parametrize(
    ("text", "minutes"),
    [
        ("infinite", None),
        ("UNLIMITED", None),
        ("30", 30),  # minutes
        ("30:00", 30),  # minutes:seconds
        ("30:01", 31),  # a second more: the next minute
        ("2:00:00", 120),
        ("1-00:00:00", 1440),
        ("2-12", 3600),  # days-hours
        ("1-01:30", 1530),  # days-hours:minutes
    ],
)
def test_slurm_time_limits_in_minutes(text, minutes):
    assert time_limit_minutes(text) == minutes


@pytest.mark.parametrize(
    ("gres", "gpus"),
    [
        ("(null)", 0),
        ("gpu:2", 2),
        ("gpu:a100:4(S:0-1)", 4),
        ("gpu:a100:2,gpu:v100:2", 4),
        ("shard:8,gpu:1", 1),
    ],
)
def test_gpus_of_a_node_from_its_gres(gres, gpus):
    assert gpus_of_gres(gres) == gpus


def test_sinfo_lines_are_node_groups_with_the_default_partition_marked():
    groups = parse_sinfo(SINFO)
    assert groups[0] == NodeGroup("cpu", 2, 7000, 0, 2, None, default=True)
    assert groups[1] == NodeGroup("gpu", 64, 512000, 2, 1, 1440)
    assert groups[2] == NodeGroup("gpu", 32, 256000, 4, 1, 1440)


def test_requests_as_the_plugin_submits_them():
    # a GPU job on one node: --gpus=4 --cpus-per-gpu=8 (cpus_per_task 0: left out)
    gpu = job_request(
        "pretrain",
        "model=x",
        32,
        {"gpu": 4, "cpus_per_gpu": 8, "cpus_per_task": 0, "mem_mb": 128000, "runtime": 2880},
    )
    assert (gpu.cpus, gpu.gpus, gpu.memory_mb, gpu.nodes, gpu.runtime) == (32, 4, 128000, 1, 2880)
    # on two nodes: --gres=gpu:2 on each, --cpus-per-gpu=8
    nodes = job_request("distill", "", 16, {"gres": "gpu:2", "nodes": 2, "cpus_per_gpu": 8})
    assert (nodes.cpus, nodes.gpus, nodes.nodes) == (16, 2, 2)
    # a CPU job: its threads, or cpus_per_task; memory per CPU times its CPUs
    assert job_request("report", "", 3, {"mem_mb": 1000}).cpus == 3
    cpu = job_request("tokenize_corpus", "", 3, {"cpus_per_task": 4, "mem_mb_per_cpu": 500})
    assert (cpu.cpus, cpu.memory_mb, cpu.gpus) == (4, 2000, 0)
    # a memory Snakemake has not determined yet (<TBD>) is not known
    assert job_request("train_vocabulary", "", 2, {"mem_mb": "<TBD>"}).memory_mb is None


def test_a_run_submits_the_requests_of_its_jobs_but_the_local_ones():
    """All but the jobs of the local rules and of the rules that run nothing (the target
    `all`), whatever job.is_local says: a dry run counts every job local."""

    def job(rule: str, norun: bool = False, **wildcards: str) -> SimpleNamespace:
        return SimpleNamespace(
            rule=SimpleNamespace(name=rule, norun=norun),
            is_local=True,
            wildcards_dict=wildcards,
            threads=2,
            resources={"mem_mb": 1000},
        )

    jobs = [job("finetune", model="m", task="t"), job("report"), job("all", norun=True)]
    requests = list(submitted_requests(jobs, local_rules={"report"}))
    assert requests == [job_request("finetune", "model=m, task=t", 2, {"mem_mb": 1000})]


def test_every_job_no_node_can_run_is_named_with_its_partitions_largest_nodes():
    requests = [
        # fits: 2 CPUs, 3200 MB on the default (cpu) partition
        job_request("tokenize_corpus", "vocab=small", 2, {"mem_mb": 3200, "runtime": 120}),
        # 32 CPUs: no node of cpu has them
        job_request("tokenize_corpus", "vocab=big", 32, {"mem_mb": 21200, "runtime": 120}),
        # 4 GPUs and 32 CPUs: the second GPU node
        job_request(
            "pretrain",
            "model=a",
            32,
            {
                "gpu": 4,
                "cpus_per_gpu": 8,
                "mem_mb": 128000,
                "runtime": 1440,
                "slurm_partition": "gpu",
            },
        ),
        # 4 GPUs and 64 CPUs: no node has both; 40 CPUs and 2 GPUs on each of 2 nodes: one
        # node has them
        job_request(
            "pretrain",
            "model=b",
            64,
            {"gpu": 4, "cpus_per_gpu": 16, "mem_mb": 1000, "slurm_partition": "gpu"},
        ),
        job_request(
            "distill",
            "model=c",
            40,
            {
                "gres": "gpu:2",
                "nodes": 2,
                "cpus_per_gpu": 20,
                "mem_mb": 1000,
                "slurm_partition": "gpu",
            },
        ),
        # over the time limit of 1440 min
        job_request(
            "pretrain",
            "model=d",
            8,
            {
                "gpu": 1,
                "cpus_per_gpu": 8,
                "mem_mb": 1000,
                "runtime": 2880,
                "slurm_partition": "gpu",
            },
        ),
        # three alike fine-tuning runs: one line; a partition that does not exist
        *(
            job_request("finetune", f"seed={seed}", 1, {"slurm_partition": "a100"})
            for seed in (1, 2, 3)
        ),
    ]
    gpu_nodes = "2 nodes of at most 64 CPUs, 512000 MB, 4 GPUs, time limit 1440 min"
    assert unfit_jobs(requests, parse_sinfo(SINFO)) == [
        "tokenize_corpus (vocab=big): asks for 32 CPUs, 21200 MB, 120 min; partition 'cpu' "
        "has 2 nodes of at most 2 CPUs, 7000 MB, 0 GPUs, time limit none",
        f"pretrain (model=b): asks for 64 CPUs, 1000 MB, 4 GPUs; partition 'gpu' has {gpu_nodes}",
        "distill (model=c): asks for 40 CPUs, 1000 MB, 2 GPUs, on each of 2 nodes; partition "
        f"'gpu' has {gpu_nodes}",
        f"pretrain (model=d): asks for 8 CPUs, 1000 MB, 1 GPU, 2880 min; partition 'gpu' has "
        f"{gpu_nodes}",
        "finetune (seed=1) and 2 more jobs: partition 'a100' is not one of the cluster's "
        "['cpu', 'gpu']",
    ]


def test_the_error_lists_the_jobs_and_how_to_fix_them():
    check_jobs_fit([job_request("report", "", 1, {"mem_mb": 1000})], sinfo=SINFO)  # fits
    with pytest.raises(ValueError) as error:
        check_jobs_fit([job_request("tokenize_corpus", "vocab=v", 32, {})], sinfo=SINFO)
    message = str(error.value)
    assert message.startswith("1 job(s) ask Slurm for more than their partition can ever give")
    assert "tokenize_corpus (vocab=v): asks for 32 CPUs" in message
    assert "data_jobs" in message and "--max-threads" in message


def test_without_sinfo_nothing_is_checked_and_a_warning_says_so(monkeypatch, caplog):
    monkeypatch.setattr(cluster_fit, "SINFO_COMMAND", ["/nonexistent/sinfo"])
    check_jobs_fit([job_request("tokenize_corpus", "", 1024, {})])  # no error
    assert "the jobs' sizes are not checked: sinfo failed" in caplog.text


def _logged(name: str, event: LogEvent | None = None) -> logging.LogRecord:
    return logging.makeLogRecord({"name": name, "levelno": logging.INFO, "msg": "", "event": event})


def test_a_dry_run_warns_once_with_what_a_real_run_stops_with(monkeypatch, caplog):
    """When the dry run logs its job stats (RUN_INFO), once: the message of check_jobs_fit,
    as a warning on the logger that logged the stats."""
    monkeypatch.setattr(cluster_fit, "SINFO_COMMAND", ["printf", "%s", SINFO])
    requests = [job_request("tokenize_corpus", "vocab=v", 32, {"slurm_partition": "cpu"})]
    check = DryRunFitCheck(SimpleNamespace(dryrun=True), lambda: requests)
    check.handle(_logged("dry-run"))  # another message: nothing yet
    assert not caplog.records
    check.handle(_logged("dry-run", LogEvent.RUN_INFO))
    check.handle(_logged("dry-run", LogEvent.RUN_INFO))  # the stats again, at the end: once
    [warning] = caplog.records
    assert (warning.name, warning.levelno) == ("dry-run", logging.WARNING)
    assert warning.getMessage() == (
        "1 job(s) ask Slurm for more than their partition can ever give, so they would wait "
        "in the queue for ever:\n  tokenize_corpus (vocab=v): asks for 32 CPUs; partition "
        "'cpu' has 2 nodes of at most 2 CPUs, 7000 MB, 0 GPUs, time limit none\nSize them "
        "down in the config (data_jobs, each model's resources; docs/slurm.md, \"A small or "
        'test cluster"), cap their CPUs with --max-threads, or pick other partitions '
        "(BIOCOMPACT_CPU_PARTITION, BIOCOMPACT_GPU_PARTITION).\nA real run stops here; this "
        "dry run goes on."
    )


@pytest.mark.parametrize(
    ("dryrun", "partition"),
    [(False, "cpu"), (True, None)],
    ids=["a real run, which its onstart handler checks", "a dry run without the slurm profile"],
)
def test_the_dry_run_check_leaves_other_runs_alone(monkeypatch, caplog, dryrun, partition):
    monkeypatch.setattr(cluster_fit, "SINFO_COMMAND", ["/nonexistent/sinfo"])  # would warn
    requests = [job_request("tokenize_corpus", "", 32, {"slurm_partition": partition})]
    check = DryRunFitCheck(SimpleNamespace(dryrun=dryrun), lambda: requests)
    check.handle(_logged("dry-run", LogEvent.RUN_INFO))
    assert not caplog.records
