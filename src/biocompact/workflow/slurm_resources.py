"""The Slurm resources of a GPU job from its config ``resources`` block (schema: gpu_job),
in the names of Snakemake's Slurm executor plugin (light: read when the DAG is built).

On one node, ``gpu`` becomes --gpus; on ``nodes`` N > 1, ``gres`` gpu:G asks for G GPUs on
each node, and ``mpi`` with ``tasks`` N runs the job's script on the first node without
srun, for it to start one launcher per node (--ntasks=N). ``cpus_per_gpu`` becomes
--cpus-per-gpu, or ``cpus_per_task`` --cpus-per-task for a job without GPUs, never more
CPUs than Snakemake gives one job (--max-threads, --cores: ``cpus_allowed``).
``gpus_per_node`` is the launcher's, not the plugin's. A value of None leaves the option
out.

The data stages' CPU jobs take their resources from the config's ``data_jobs`` section
(``DataJobs``: one class per job, with its own defaults), as the workflow passes them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Annotated, Any

from pydantic import Field

from biocompact.entries import ENTRY, parse_entry


@dataclass(frozen=True)
class GpuJob:
    """Slurm resources of one GPU job, used by the slurm profile; a local run gives the job
    gpus x cpus_per_gpu threads, at most --cores"""

    __pydantic_config__ = ENTRY

    gpus: Annotated[int, Field(ge=0)] = 1
    """GPUs on each node (--gpus on one node, --gres=gpu:G on several); 0: a CPU job"""
    nodes: Annotated[int, Field(ge=1)] = 1
    """nodes of the job (--nodes): one launcher per node, nodes x gpus processes (pretraining
    and distillation only)"""
    cpus_per_gpu: Annotated[int, Field(ge=1)] = 8
    """--cpus-per-gpu (CPUs of a CPU job)"""
    mem_mb: Annotated[int, Field(ge=100)] = 32000
    """--mem, in MB"""
    runtime: Annotated[int, Field(ge=1)] = 1440
    """time limit in minutes (-t); pretraining and distillation stopped at it resume from
    their checkpoint"""


MemoryMb = Annotated[int, Field(ge=100)]  # --mem, in MB
Minutes = Annotated[int, Field(ge=1)]  # time limit (-t)


@dataclass(frozen=True)
class CorpusParsePubmedJob:
    """one PubMed file, one process"""

    __pydantic_config__ = ENTRY

    mem_mb: MemoryMb = 1000
    runtime: Minutes = 30


@dataclass(frozen=True)
class CorpusParsePmcJob:
    """one PMC file (a bulk package streamed), one process"""

    __pydantic_config__ = ENTRY

    mem_mb: MemoryMb = 1000
    runtime: Minutes = 120


@dataclass(frozen=True)
class CorpusSplitSentencesJob:
    """one PubMed file's sentences, one process"""

    __pydantic_config__ = ENTRY

    mem_mb: MemoryMb = 3000
    runtime: Minutes = 240


@dataclass(frozen=True)
class CorpusSplitPmcJob:
    """one PMC file's sentences, one process"""

    __pydantic_config__ = ENTRY

    mem_mb: MemoryMb = 3000
    runtime: Minutes = 480


@dataclass(frozen=True)
class CorpusSplitTextJob:
    """one local text source's sentences, one process"""

    __pydantic_config__ = ENTRY

    mem_mb: MemoryMb = 3000
    runtime: Minutes = 240


@dataclass(frozen=True)
class TrainVocabularyJob:
    """each vocabulary, its corpus read in one process"""

    __pydantic_config__ = ENTRY

    mem_mb: MemoryMb | None = None
    """null: the worst case of its sample (docs/slurm.md): 430 MB + 1 KB per distinct word the
    sample may hold, from the shards' word counts and sample_fraction, plus a quarter"""
    runtime: Minutes = 240


@dataclass(frozen=True)
class TokenizeCorpusJob:
    """each vocabulary's tokenised corpus, read, tokenised and packed in `threads` processes"""

    __pydantic_config__ = ENTRY

    threads: Annotated[int, Field(ge=1)] = 4
    """processes; Slurm: --cpus-per-task"""
    mem_mb: MemoryMb | None = None
    """null: 2000 + 600 per process (docs/slurm.md)"""
    runtime: Minutes = 120


@dataclass(frozen=True)
class DataJobs:
    """CPUs, memory and time limits of the data stages' jobs, which the slurm profile submits
    with them (--cpus-per-task, --mem in MB, -t in minutes); a local run gives a job its
    threads, at most --cores, and a Slurm run at most --max-threads. Modest by default;
    configs/pubmed-full.yaml sizes them for all of PubMed (docs/slurm.md)"""

    __pydantic_config__ = ENTRY
    SECTION = "data_jobs"

    corpus_parse_pubmed: CorpusParsePubmedJob = CorpusParsePubmedJob()
    corpus_parse_pmc: CorpusParsePmcJob = CorpusParsePmcJob()
    corpus_split_sentences: CorpusSplitSentencesJob = CorpusSplitSentencesJob()
    corpus_split_pmc: CorpusSplitPmcJob = CorpusSplitPmcJob()
    corpus_split_text: CorpusSplitTextJob = CorpusSplitTextJob()
    train_vocabulary: TrainVocabularyJob = TrainVocabularyJob()
    tokenize_corpus: TokenizeCorpusJob = TokenizeCorpusJob()


# The plugin's resource names a GPU job sets (``slurm_resources``'s keys)
RESOURCE_NAMES = (
    "gpu",
    "gres",
    "nodes",
    "mpi",
    "tasks",
    "gpus_per_node",
    "cpus_per_gpu",
    "cpus_per_task",
    "mem_mb",
    "runtime",
)


def cpus_allowed(requested: int, caps: Iterable[int | None]) -> int:
    """``requested`` CPUs, at most each cap that is set (Snakemake's --max-threads and
    --cores), so that a job never asks Slurm for more CPUs than it is given threads."""
    for cap in caps:
        if cap:
            requested = min(requested, cap)
    return requested


def slurm_resources(job: GpuJob, caps: Iterable[int | None]) -> dict[str, int | str | None]:
    """The plugin's resources of one job whose config block is ``job``."""
    caps = tuple(caps)
    gpus, nodes = job.gpus, job.nodes
    several = nodes > 1
    return {
        "gpu": None if several else gpus,
        "gres": f"gpu:{gpus}" if several and gpus else None,
        "nodes": nodes,
        "mpi": "srun" if several else None,
        "tasks": nodes if several else None,
        "gpus_per_node": gpus,
        "cpus_per_gpu": max(1, cpus_allowed(max(1, gpus) * job.cpus_per_gpu, caps) // max(1, gpus)),
        "cpus_per_task": 0 if gpus else cpus_allowed(job.cpus_per_gpu, caps),
        "mem_mb": job.mem_mb,
        "runtime": job.runtime,
    }


def gpu_job_resources(
    entry: Mapping[str, Any] | Callable[[Any], Mapping[str, Any]], caps: Iterable[int | None]
) -> dict[str, Callable[[Any], Any]]:
    """A rule's ``resources``: for each of the plugin's names, a function of the job's
    wildcards. ``entry`` is the config entry holding the ``resources`` block, or a function
    of the wildcards giving it (one entry per model)."""
    caps = tuple(caps)
    return {key: partial(_resource, entry, caps, key) for key in RESOURCE_NAMES}


def gpu_job_threads(
    entry: Callable[[Any], Mapping[str, Any]],
) -> Callable[[Any], int]:
    """A rule's ``threads``: every CPU its job asks for (Snakemake caps them at --cores
    locally)."""
    return partial(_threads, entry)


def _resource(
    entry: Mapping[str, Any] | Callable[[Any], Mapping[str, Any]],
    caps: tuple[int | None, ...],
    key: str,
    wildcards: Any,
) -> Any:
    block = (entry(wildcards) if callable(entry) else entry)["resources"]
    return slurm_resources(parse_entry(GpuJob, block), caps)[key]


def _threads(entry: Callable[[Any], Mapping[str, Any]], wildcards: Any) -> int:
    job = parse_entry(GpuJob, entry(wildcards)["resources"])
    return max(1, job.gpus) * job.cpus_per_gpu


def one_gpu(entry: Mapping[str, Any]) -> dict[str, Any]:
    """Config ``entry`` with its resources cut to one GPU (none where it has none): for the
    jobs of a section that run in one process while its training jobs use every GPU."""
    resources = entry["resources"]
    return {**entry, "resources": {**resources, "gpus": min(resources["gpus"], 1)}}


def without_resources(entry: Mapping[str, Any]) -> dict[str, Any]:
    """Config ``entry`` as its job reads it (the stage's settings dataclass): the Slurm
    ``resources`` left out, as they change no result."""
    return {key: value for key, value in entry.items() if key != "resources"}


def timing_threads(cores: int | None, usable_cpus: int) -> int:
    """The threads of the timing jobs (efficiency, evaluate_compressed): every core
    Snakemake may use (``cores``; at most the ``usable_cpus`` this process may run on), so
    that in a local run no other job runs beside their measurements; 4 where no core count
    is given (the Slurm profile sets its own, set-threads)."""
    return min(cores, usable_cpus) if cores else 4
