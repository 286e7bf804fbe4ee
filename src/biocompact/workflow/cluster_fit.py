"""Whether every job's Slurm request fits a node of its partition, read from ``sinfo``.

Slurm queues a job that asks for more CPUs, memory, GPUs or time than any node of its
partition has, and leaves it pending for ever ("PD (PartitionConfig)"), while Snakemake
waits for it without a word. With the slurm profile the workflow therefore reads the
partitions from ``sinfo`` once the DAG is built, before any job is submitted, and stops
naming every job that could never start (``check_jobs_fit`` of ``submitted_requests``,
called by the ``onstart`` handler of ``workflow/rules/common.smk``; light: no torch). A dry
run, for which Snakemake calls no ``onstart`` handler, prints the same lines as a warning
(``DryRunFitCheck``) and goes on.

A job's request is what the Slurm executor plugin (2.6.0) submits: ``--cpus-per-task``
(``cpus_per_task``, else the job's threads) or ``--cpus-per-gpu`` times its GPUs
(``gpu``, or a ``gres`` of ``gpu:G`` on each node), ``--mem`` (``mem_mb``, or
``mem_mb_per_cpu`` a CPU), ``--nodes`` and ``-t`` (``runtime``, minutes), in
``slurm_partition`` or the cluster's default partition.
"""

from __future__ import annotations

import logging
import re
import subprocess
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

from snakemake_interface_logger_plugins.common import LogEvent

log = logging.getLogger(__name__)

# One line per partition and node configuration (--exact: no "32+" for mixed nodes).
SINFO_COMMAND = ["sinfo", "--noheader", "--exact", "--format=%P|%c|%m|%G|%D|%l"]
UNLIMITED = ("infinite", "unlimited")


@dataclass(frozen=True)
class NodeGroup:
    """``count`` nodes of ``partition`` alike: CPUs, memory (MB) and GPUs a node, and the
    partition's time limit in minutes (None: none)."""

    partition: str
    cpus: int
    memory_mb: int
    gpus: int
    count: int
    time_limit: int | None
    default: bool = False


@dataclass(frozen=True)
class JobRequest:
    """What one job of ``rule`` asks Slurm for, on each of its ``nodes`` (None: not known
    yet, e.g. a memory computed from inputs that do not exist yet)."""

    rule: str
    wildcards: str
    partition: str | None
    nodes: int
    cpus: int
    memory_mb: int | None
    gpus: int
    runtime: int | None


def time_limit_minutes(text: str) -> int | None:
    """Minutes of a Slurm time (``MM``, ``MM:SS``, ``HH:MM:SS``, ``D-HH[:MM[:SS]]``;
    ``infinite``: None), seconds rounded up."""
    if text.strip().lower() in UNLIMITED:
        return None
    days, _, clock = text.strip().rpartition("-")
    parts = [int(part) for part in clock.split(":")]
    if days:  # D-HH, D-HH:MM, D-HH:MM:SS
        hours, minutes, seconds = [*parts, 0, 0][:3]
    elif len(parts) == 3:
        hours, minutes, seconds = parts
    else:  # MM or MM:SS
        hours, (minutes, seconds) = 0, [*parts, 0][:2]
    return (int(days or 0) * 24 + hours) * 60 + minutes + (seconds > 0)


def gpus_of_gres(gres: str) -> int:
    """GPUs a node has from sinfo's GRES column (``gpu:2``, ``gpu:a100:4(S:0-1)``,
    ``gpu:a100:2,gpu:v100:2``; ``(null)``: none)."""
    total = 0
    for entry in re.sub(r"\([^)]*\)", "", gres).split(","):
        fields = entry.strip().split(":")
        if fields[0] == "gpu" and len(fields) > 1 and fields[-1].isdigit():
            total += int(fields[-1])
    return total


def parse_sinfo(text: str) -> list[NodeGroup]:
    """The node groups of ``SINFO_COMMAND``'s output (the default partition marked ``*``)."""
    groups = []
    for line in text.splitlines():
        if not line.strip():
            continue
        partition, cpus, memory, gres, count, limit = line.strip().split("|")
        groups.append(
            NodeGroup(
                partition=partition.rstrip("*"),
                cpus=int(cpus.rstrip("+")),
                memory_mb=int(memory.rstrip("+")),
                gpus=gpus_of_gres(gres),
                count=int(count),
                time_limit=time_limit_minutes(limit),
                default=partition.endswith("*"),
            )
        )
    return groups


def _known(value: Any) -> int | None:
    """An integer resource, or None for one still to be determined (Snakemake's <TBD>)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def job_request(
    rule: str, wildcards: str, threads: int, resources: Mapping[str, Any]
) -> JobRequest:
    """The request of a job of ``rule`` (its ``wildcards`` as text) with ``threads`` and
    Snakemake ``resources``, as the Slurm executor plugin submits it."""
    nodes = _known(resources.get("nodes")) or 1
    gres = resources.get("gres") or ""
    gpus = gpus_of_gres(gres) if "gpu" in str(gres) else _known(resources.get("gpu")) or 0
    if _known(resources.get("cpus_per_task")):
        cpus = resources["cpus_per_task"]
    elif gpus and _known(resources.get("cpus_per_gpu")):
        cpus = resources["cpus_per_gpu"] * gpus
    else:
        cpus = threads
    memory = _known(resources.get("mem_mb"))
    if _known(resources.get("mem_mb_per_cpu")):
        memory = resources["mem_mb_per_cpu"] * cpus
    return JobRequest(
        rule=rule,
        wildcards=wildcards,
        partition=resources.get("slurm_partition") or None,
        nodes=nodes,
        cpus=cpus,
        memory_mb=memory,
        gpus=gpus,
        runtime=_known(resources.get("runtime")),
    )


def submitted_requests(jobs: Iterable[Any], local_rules: Collection[str]) -> Iterator[JobRequest]:
    """The requests of the Snakemake ``jobs`` (of its DAG) that a run submits to Slurm: all
    but those of ``local_rules`` and of the rules that run nothing (the targets). A dry run
    counts every job local (``job.is_local``), so the rules decide."""
    for job in jobs:
        if not (job.rule.name in local_rules or job.rule.norun):
            wildcards = ", ".join(f"{key}={value}" for key, value in job.wildcards_dict.items())
            yield job_request(job.rule.name, wildcards, job.threads, job.resources)


def _fits(request: JobRequest, group: NodeGroup) -> bool:
    return (
        request.cpus <= group.cpus
        and (request.memory_mb is None or request.memory_mb <= group.memory_mb)
        and request.gpus <= group.gpus
    )


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" + ("" if number == 1 else "s")


def _asked(request: JobRequest) -> str:
    parts = [_count(request.cpus, "CPU")]
    if request.memory_mb is not None:
        parts.append(f"{request.memory_mb} MB")
    if request.gpus:
        parts.append(_count(request.gpus, "GPU"))
    if request.nodes > 1:
        parts.append(f"on each of {request.nodes} nodes")
    if request.runtime is not None:
        parts.append(f"{request.runtime} min")
    return ", ".join(parts)


def _largest(groups: list[NodeGroup]) -> str:
    cpus, memory, gpus = (
        max(getattr(group, key) for group in groups) for key in ("cpus", "memory_mb", "gpus")
    )
    limit = groups[0].time_limit
    return (
        f"{_count(sum(group.count for group in groups), 'node')} of at most "
        f"{_count(cpus, 'CPU')}, {memory} MB, {_count(gpus, 'GPU')}, time limit "
        + ("none" if limit is None else f"{limit} min")
    )


def unfit_jobs(requests: Iterable[JobRequest], groups: list[NodeGroup]) -> list[str]:
    """One line for each rule's request that no node group of its partition can ever run
    (too many CPUs, MB or GPUs for every node, too few such nodes, or over the partition's
    time limit); jobs of a rule that ask alike share a line."""
    default = next((group.partition for group in groups if group.default), None)
    alike: dict[JobRequest, list[str]] = {}
    for request in requests:
        alike.setdefault(replace(request, wildcards=""), []).append(request.wildcards)
    problems = []
    for request, wildcards in alike.items():
        jobs = request.rule + (f" ({wildcards[0]})" if wildcards[0] else "")
        if len(wildcards) > 1:
            jobs += f" and {_count(len(wildcards) - 1, 'more job')}"
        partition = request.partition or default
        members = [group for group in groups if group.partition == partition]
        if not members:
            known = sorted({group.partition for group in groups})
            problems.append(f"{jobs}: partition {partition!r} is not one of the cluster's {known}")
            continue
        fitting = sum(group.count for group in members if _fits(request, group))
        limit = members[0].time_limit
        too_long = request.runtime is not None and limit is not None and request.runtime > limit
        if fitting < request.nodes or too_long:
            problems.append(
                f"{jobs}: asks for {_asked(request)}; partition {partition!r} has "
                f"{_largest(members)}"
            )
    return problems


def unfit_jobs_message(requests: Iterable[JobRequest], sinfo: str | None = None) -> str:
    """The message naming every job of ``requests`` that no node of its partition can ever
    run, the partitions read from ``sinfo`` (its output; None: run it, and where it fails,
    warn and check nothing); empty when every job fits."""
    if sinfo is None:
        try:
            sinfo = subprocess.run(
                SINFO_COMMAND, capture_output=True, text=True, check=True, timeout=60
            ).stdout
        except (OSError, subprocess.SubprocessError) as error:
            log.warning("the jobs' sizes are not checked: sinfo failed (%s)", error)
            return ""
    problems = unfit_jobs(requests, parse_sinfo(sinfo))
    if not problems:
        return ""
    return (
        f"{len(problems)} job(s) ask Slurm for more than their partition can ever give, "
        "so they would wait in the queue for ever:\n  "
        + "\n  ".join(problems)
        + "\nSize them down in the config (data_jobs, each model's resources; docs/slurm.md, "
        '"A small or test cluster"), cap their CPUs with --max-threads, or pick other '
        "partitions (BIOCOMPACT_CPU_PARTITION, BIOCOMPACT_GPU_PARTITION)."
    )


def check_jobs_fit(requests: Iterable[JobRequest], sinfo: str | None = None) -> None:
    """Raise ValueError with the ``unfit_jobs_message`` of ``requests``, where it is not
    empty."""
    if message := unfit_jobs_message(requests, sinfo):
        raise ValueError(message)


class DryRunFitCheck(logging.Handler):
    """The check of a real run, in a dry run, where Snakemake calls no ``onstart`` handler:
    attached to Snakemake's logger, it reads the DAG when a dry run logs its planned jobs'
    stats (Snakemake's RUN_INFO event, once the DAG is built, before the jobs are listed) and
    warns, on that logger, with the message a real run stops with; the dry run goes on. The
    jobs are checked where one of them names a Slurm partition (the slurm profile's default
    resources do): a dry run knows of no executor but its own.

    ``workflow`` is Snakemake's, ``requests`` gives its jobs' ``submitted_requests``."""

    def __init__(self, workflow: Any, requests: Callable[[], Iterable[JobRequest]]) -> None:
        super().__init__()
        self.workflow = workflow
        self.requests = requests
        self.checked = False

    def emit(self, record: logging.LogRecord) -> None:
        if self.checked or getattr(record, "event", None) != LogEvent.RUN_INFO:
            return
        self.checked = True
        if not self.workflow.dryrun:
            return  # a real run: its onstart handler checks, and stops
        requests = list(self.requests())
        if any(request.partition for request in requests) and (
            message := unfit_jobs_message(requests)
        ):
            # whole, not %-formatted: Snakemake's formatter prints a record's msg alone
            logging.getLogger(record.name).warning(
                f"{message}\nA real run stops here; this dry run goes on."
            )
