# Public datasets by name: a task with `dataset: NAME` gets the registry's family, format,
# folds and metric, and split files under results/data/NAME/ that these rules download
# (once per source archive), verify and convert. Included before common.smk, which sees
# the filled-in tasks.

import re

from biocompact.datasets.convert import prepared_files
from biocompact.datasets.registry import SOURCES, get_dataset
from biocompact.datasets.tasks import CACHE, archive_path, dataset_task


def _resolve_dataset_tasks():
    """Replace each task naming a `dataset` by its filled-in settings."""
    tasks = config["finetuning"]["tasks"]
    for name in list(tasks):
        tasks[name] = dataset_task(name, tasks[name])
    return sorted({settings["dataset"] for settings in tasks.values() if settings.get("dataset")})


DATASETS_USED = _resolve_dataset_tasks()
DATASET_SOURCES = sorted({get_dataset(name).source for name in DATASETS_USED})


def dataset_source_url(source):
    """The URL a source archive is downloaded from: its mirror in the config, else the registry's."""
    return config["datasets"]["mirrors"].get(source, SOURCES[source].url)


def blurb_task_types():
    """Task -> BLURB task type, for the tasks whose dataset is one of BLURB's."""
    types = {}
    for task, settings in config["finetuning"]["tasks"].items():
        kind = get_dataset(settings["dataset"]).blurb_type if settings.get("dataset") else None
        if kind:
            types[task] = kind
    return types


def _alternatives(names):
    return "|".join(re.escape(name) for name in names) or "(?!)"


localrules:
    download_dataset,


rule download_dataset:
    """Download one source archive and verify its SHA-256 (registry, else the checksum lock file)."""
    output:
        f"{CACHE}/archives/{{source}}/{{archive}}",
    wildcard_constraints:
        source=_alternatives(DATASET_SOURCES),
        archive=_alternatives(SOURCES[s].archive for s in DATASET_SOURCES),
    params:
        url=lambda wc: dataset_source_url(wc.source),
        lock_file=config["datasets"]["checksum_lock"],
        retries=config["datasets"]["retries"],
    log:
        "results/logs/datasets/download/{source}/{archive}.log",
    threads: 1
    resources:
        mem_mb=500,
        runtime=120,
    conda:
        "../../envs/corpus.yaml"
    script:
        "../../scripts/datasets_download.py"


rule prepare_dataset:
    """Convert one split file of a dataset from its source archive to the harness format."""
    input:
        archive=lambda wc: archive_path(get_dataset(wc.dataset).source),
    output:
        f"{CACHE}/{{dataset}}/{{file}}",
    wildcard_constraints:
        dataset=_alternatives(DATASETS_USED),
        file=_alternatives(f for d in DATASETS_USED for f in prepared_files(get_dataset(d))),
    params:
        url=lambda wc: dataset_source_url(get_dataset(wc.dataset).source),
    log:
        "results/logs/datasets/prepare/{dataset}/{file}.log",
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        "../../envs/corpus.yaml"
    script:
        "../../scripts/datasets_prepare.py"
