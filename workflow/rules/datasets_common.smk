# Names and input functions of the dataset rules (datasets.smk), derived from the config;
# included by common.smk.
# Importing the registry validates registry.yaml against its schema: an unknown key or a
# missing field stops the DAG build naming the file and the key.

import re

from biocompact.datasets.convert import prepared_files
from biocompact.datasets.registry import SOURCES, get_dataset
from biocompact.datasets.tasks import CACHE, archive_path
from biocompact.workflow.config_checks import dataset_sources, datasets_used

# The registered datasets whose prepared files the tasks read (each checked: registered and
# downloadable), and their source archives. The tasks are filled in from the registry where
# they are read (finetuning.settings.task_entry).
DATASETS_USED = datasets_used(config["finetuning"])
DATASET_SOURCES = dataset_sources(DATASETS_USED)


def dataset_source_url(source):
    """The URL a source archive is downloaded from: its mirror in the config, else the registry's."""
    return config["datasets"]["mirrors"].get(source, SOURCES[source].url)


def source_url(wildcards):
    """Params: the URL of source archive ``wildcards.source``."""
    return dataset_source_url(wildcards.source)


def dataset_archive(wildcards):
    """Input: the downloaded source archive of dataset ``wildcards.dataset``."""
    return archive_path(get_dataset(wildcards.dataset).source)


def dataset_url(wildcards):
    """Params: the URL of the source archive of dataset ``wildcards.dataset``."""
    return dataset_source_url(get_dataset(wildcards.dataset).source)


def blurb_task_types():
    """Task -> BLURB task type, for the tasks whose dataset is one of BLURB's."""
    types = {}
    for task, settings in config["finetuning"]["tasks"].items():
        kind = get_dataset(settings["dataset"]).blurb_type if settings.get("dataset") else None
        if kind:
            types[task] = kind
    return types


def dataset_counts():
    """The checked-counts file of every prepared file of the datasets the tasks name."""
    return [
        f"{CACHE}/counts/{name}/{relative}.json"
        for name in DATASETS_USED
        for relative in prepared_files(get_dataset(name))
    ]


def _alternatives(names):
    return "|".join(re.escape(name) for name in names) or "(?!)"
