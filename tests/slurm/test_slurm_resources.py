"""A GPU job's config ``resources`` block mapped to the Slurm plugin's resources, without
building a DAG (biocompact.workflow.slurm_resources)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from biocompact.workflow.slurm_resources import (
    RESOURCE_NAMES,
    GpuJob,
    cpus_allowed,
    gpu_job_resources,
    gpu_job_threads,
    slurm_resources,
    timing_threads,
    without_resources,
)

ONE_NODE = {"gpus": 2, "nodes": 1, "cpus_per_gpu": 8, "mem_mb": 32000, "runtime": 1440}
ONE_NODE_JOB = GpuJob(**ONE_NODE)
NO_CAP = (None, None)


def test_caps_that_are_set_bound_the_cpus():
    assert cpus_allowed(16, (None, None)) == 16
    assert cpus_allowed(16, (4, None)) == 4
    assert cpus_allowed(16, (None, 6)) == 6
    assert cpus_allowed(16, (8, 2)) == 2
    assert cpus_allowed(3, (8, 4)) == 3


def test_one_node_asks_for_its_gpus_and_their_cpus():
    assert slurm_resources(ONE_NODE_JOB, NO_CAP) == {
        "gpu": 2,
        "gres": None,
        "nodes": 1,
        "mpi": None,
        "tasks": None,
        "gpus_per_node": 2,
        "cpus_per_gpu": 8,
        "cpus_per_task": 0,
        "mem_mb": 32000,
        "runtime": 1440,
    }
    assert tuple(slurm_resources(ONE_NODE_JOB, NO_CAP)) == RESOURCE_NAMES


def test_several_nodes_ask_for_gpus_per_node_and_one_task_a_node():
    resources = slurm_resources(GpuJob(**{**ONE_NODE, "nodes": 2, "gpus": 4}), NO_CAP)
    assert (resources["gpu"], resources["gres"], resources["mpi"], resources["tasks"]) == (
        None,
        "gpu:4",
        "srun",
        2,
    )
    assert resources["nodes"] == 2 and resources["gpus_per_node"] == 4


@pytest.mark.parametrize(
    ("block", "caps", "per_gpu", "per_task"),
    [
        (ONE_NODE, (4, None), 2, 0),  # 2 GPUs x 8 CPUs capped at 4: 2 a GPU
        (ONE_NODE, (1, None), 1, 0),  # never below one CPU a GPU
        ({**ONE_NODE, "gpus": 0}, NO_CAP, 8, 8),  # a CPU job: --cpus-per-task
        ({**ONE_NODE, "gpus": 0}, (None, 2), 2, 2),  # capped by --cores
    ],
)
def test_cpus_never_exceed_what_snakemake_gives_one_job(block, caps, per_gpu, per_task):
    resources = slurm_resources(GpuJob(**block), caps)
    assert (resources["cpus_per_gpu"], resources["cpus_per_task"]) == (per_gpu, per_task)


def test_rule_resources_and_threads_read_each_jobs_entry():
    entries = {"a": {"resources": ONE_NODE}, "b": {"resources": {**ONE_NODE, "gpus": 0}}}

    def entry(wildcards):
        return entries[wildcards.model]

    resources = gpu_job_resources(entry, (4, None))
    threads = gpu_job_threads(entry)
    a, b = SimpleNamespace(model="a"), SimpleNamespace(model="b")
    assert set(resources) == set(RESOURCE_NAMES)
    assert (resources["gpu"](a), resources["cpus_per_gpu"](a), threads(a)) == (2, 2, 16)
    assert (resources["gpu"](b), resources["cpus_per_task"](b), threads(b)) == (0, 4, 8)
    fixed = gpu_job_resources(entries["a"], NO_CAP)
    assert fixed["mem_mb"](a) == 32000


def test_a_job_reads_its_entry_without_its_resources():
    entry = {"vocabulary": "v", "steps": 3, "resources": {"gpus": 1}}
    assert without_resources(entry) == {"vocabulary": "v", "steps": 3}
    assert entry["resources"] == {"gpus": 1}  # the config is not changed


@pytest.mark.parametrize(
    ("cores", "usable", "threads"),
    [(8, 2, 2), (2, 16, 2), (None, 16, 4)],  # at most the CPUs usable; 4 without --cores
)
def test_timing_jobs_take_every_core_snakemake_may_use(cores, usable, threads):
    assert timing_threads(cores, usable) == threads
