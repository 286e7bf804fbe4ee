"""The config's cross-checks, run when the workflow builds the DAG (``check_config``, from
``common.smk``): what the schema cannot say, such as a name one section gives another, a
layer a teacher lacks, a file that does not exist. Each error names the config key, so a bad
config stops the run before any job (light: no torch)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from biocompact.datasets.registry import get_dataset
from biocompact.datasets.tasks import uses_prepared_files
from biocompact.distillation.layer_map import resolve_layer_map, resolve_student_layers
from biocompact.distillation.methods import method_options
from biocompact.distillation.teacher_head import check_teacher_head, has_mlm_head
from biocompact.finetuning.settings import resolve_task
from biocompact.locations import resolve_location
from biocompact.pretraining.objective_families import objective_for
from biocompact.workflow.configured_inputs import (
    local_path,
    local_source_files,
    require_files,
    task_input_files,
)
from biocompact.workflow.model_shapes import checkpoint_architectures, model_depth

ValidatedConfig = Mapping[str, Any]  # the config, validated against the schema (defaults filled in)


def check_config(
    config: ValidatedConfig, pubmed_baseline: list[str], pubmed_updates: list[str]
) -> None:
    """Every cross-check of the config; the first problem raises ``ValueError``.
    ``pubmed_baseline`` and ``pubmed_updates`` are the PubMed file stems the corpus names
    (ranges and listings resolved)."""
    _check_names(config, pubmed_baseline, pubmed_updates)
    _check_locations(config)
    _check_external_teachers(config)
    _check_input_files(config, pubmed_baseline, pubmed_updates)
    _check_layers(config)
    _check_pretraining(config)
    _check_single_gpu_jobs(config)


def datasets_used(finetuning: Mapping[str, Any]) -> list[str]:
    """The registered datasets whose prepared files the tasks of config section
    ``finetuning`` read (a task naming a dataset with its own copy of every split takes the
    registry's settings and recipe alone)."""
    names = {
        resolve_task(finetuning, task, training=False).dataset
        for task, settings in finetuning["tasks"].items()
        if uses_prepared_files(settings)
    }
    return sorted(name for name in names if name is not None)  # each names one: all


def dataset_sources(datasets: Iterable[str]) -> list[str]:
    """The registry's source archives of registered ``datasets`` (``datasets_used``)."""
    sources = {get_dataset(name).source for name in datasets}
    return sorted(source for source in sources if source is not None)  # checked: all


def _all_models(config: ValidatedConfig) -> list[str]:
    return [*config["pretraining"], *config["distillation"], *config["external_models"]]


def _check_names(
    config: ValidatedConfig, pubmed_baseline: list[str], pubmed_updates: list[str]
) -> None:
    """Model names are unique; every name a section refers to exists; a corpus for the
    vocabularies."""
    pubmed_stems = pubmed_baseline + pubmed_updates
    all_models = _all_models(config)
    seen: dict[str, str] = {}
    for section, names in (
        ("pretraining", config["pretraining"]),
        ("distillation", config["distillation"]),
        ("external_models", config["external_models"]),
    ):
        for name in names:
            if name in seen:
                raise ValueError(
                    f"config: model name {name!r} is used in both {seen[name]} and {section}"
                )
            seen[name] = section
    if len(set(pubmed_stems)) != len(pubmed_stems):
        raise ValueError("config: corpus.pubmed.baseline and updates repeat a file name")
    if pubmed_updates and not pubmed_baseline:
        raise ValueError("config: corpus.pubmed.updates names files but baseline names none")
    corpus = config["corpus"]
    vocabularies = list(config["vocabularies"])
    if vocabularies and not (pubmed_stems or corpus["pmc"]["files"] or corpus["text"]["sources"]):
        raise ValueError(
            f"config: vocabularies {vocabularies} need a corpus, but corpus names no file"
        )
    for name, settings in config["pretraining"].items():
        if settings["vocabulary"] not in config["vocabularies"]:
            raise ValueError(
                f"config: pretraining.{name}.vocabulary {settings['vocabulary']!r} is not in vocabularies"
            )
    for name, settings in config["distillation"].items():
        if settings["teacher"] not in all_models:
            raise ValueError(
                f"config: distillation.{name}.teacher {settings['teacher']!r} is not a model of pretraining, distillation or external_models"
            )
        teacher = config["pretraining"].get(settings["teacher"], {})
        if teacher.get("objective") == "electra" or (
            teacher.get("family") == "electra" and not teacher.get("objective")
        ):
            raise ValueError(
                f"config: distillation.{name}.teacher {settings['teacher']!r} is an ELECTRA discriminator, which has no MLM head to distil"
            )
    for name in config["finetuning"]["models"]:
        if name not in seen:
            raise ValueError(
                f"config: finetuning.models names {name!r}, which is not a model of pretraining, distillation or external_models"
            )


def _check_locations(config: ValidatedConfig) -> None:
    """Every model location of the config names a folder, a hub name or a package's folder:
    a wrong one stops the run here, naming its key, before any job trains."""
    locations = {
        f"external_models.{name}": location for name, location in config["external_models"].items()
    }
    for name, entry in config["pretraining"].items():
        if entry["init"] != "scratch":
            locations[f"pretraining.{name}.init"] = entry["init"]
    for name, entry in config["distillation"].items():
        if entry["student_init"] not in ("teacher_layers", "random", *_all_models(config)):
            locations[f"distillation.{name}.student_init"] = entry["student_init"]
    for name, entry in config["vocabularies"].items():
        for key in ("reference", "checkpoint"):
            if entry[key]:
                locations[f"vocabularies.{name}.{key}"] = entry[key]
    for key, location in locations.items():
        resolve_location(location, key)


def _check_input_files(
    config: ValidatedConfig, pubmed_baseline: list[str], pubmed_updates: list[str]
) -> None:
    """Every input file the config names exists (task data, PubMed and PMC files and dataset
    mirrors that are local), whatever results/ holds from an earlier run: else the run
    stops here, naming each missing file's key."""
    pubmed, pmc = config["corpus"]["pubmed"], config["corpus"]["pmc"]
    files = local_source_files(
        pubmed["source"],
        [f"{stem}.xml.gz" for stem in pubmed_baseline],
        "corpus.pubmed.baseline",
        "baseline",
    )
    files += local_source_files(
        pubmed["source"],
        [f"{stem}.xml.gz" for stem in pubmed_updates],
        "corpus.pubmed.updates",
        "updatefiles",
    )
    files += local_source_files(pmc["source"], pmc["files"], "corpus.pmc.files")
    for task in config["finetuning"]["tasks"]:
        files += task_input_files(task, resolve_task(config["finetuning"], task, training=False))
    sources = dataset_sources(datasets_used(config["finetuning"]))
    for source, url in config["datasets"]["mirrors"].items():
        path = local_path(url)
        if source in sources and path is not None:
            files.append((f"datasets.mirrors.{source}", path))
    require_files(files)


def _check_layers(config: ValidatedConfig) -> None:
    """Each student's layer indices (student_layers, layer_map, minilmv2.teacher_layer) name
    layers its teacher has, where the config or a checkpoint's config.json tells its depth."""
    for name, entry in config["distillation"].items():
        where = f"config: distillation.{name}"
        method_options(entry["method"], entry, where)  # only options the method reads
        teacher = model_depth(entry["teacher"], config)
        if teacher is None:
            continue
        try:
            if entry["student_init"] == "teacher_layers":
                resolve_student_layers(teacher, entry["student_layers"])
            student = model_depth(name, config)
            if entry["layer_map"] is not None and student is not None:
                resolve_layer_map(student, teacher, entry["layer_map"])
        except ValueError as error:
            raise ValueError(f"{where} (teacher {entry['teacher']!r}): {error}") from None
        teacher_layer = (entry.get("minilmv2") or {}).get("teacher_layer")
        if teacher_layer is not None and not 1 <= teacher_layer <= teacher:
            raise ValueError(
                f"{where}.minilmv2.teacher_layer {teacher_layer} is not a layer 1..{teacher} "
                f"of the teacher {entry['teacher']!r}"
            )


def _check_pretraining(config: ValidatedConfig) -> None:
    """Each model's objective trains its family; continued pretraining reads its corpus in
    the checkpoint's own vocabulary (a vocabulary of type pretrained of the same checkpoint)."""
    for name, entry in config["pretraining"].items():
        where = f"config: pretraining.{name}"
        try:
            objective_for(entry["objective"], entry["family"])
        except ValueError as error:
            raise ValueError(f"{where}: {error}") from None
        if entry["init"] == "scratch":
            continue
        vocabulary = config["vocabularies"][entry["vocabulary"]]
        own = vocabulary["type"] == "pretrained" and resolve_location(
            vocabulary["checkpoint"]
        ) == resolve_location(entry["init"])
        if not own:
            raise ValueError(
                f"{where}.init {entry['init']!r}: continued pretraining needs the checkpoint's "
                f"own vocabulary, but vocabularies.{entry['vocabulary']} is not of type "
                "'pretrained' with this checkpoint"
            )


# Sections whose jobs cannot use all of their resources block, and the keys those jobs
# reject above 1. A fine-tuning run trains in one process on one GPU; task distillation's
# teacher and students train on every GPU of one node (biocompact.task_distillation.job),
# its other jobs on one (one_gpu). Pretraining and distillation start one process per GPU
# on each node (biocompact.training.launch).
SINGLE_GPU_SECTIONS = {
    "finetuning": (("gpus", "nodes"), "a fine-tuning run trains on one GPU"),
    "task_distillation": (("nodes",), "task-distillation jobs run on one node"),
}


def _check_single_gpu_jobs(config: ValidatedConfig) -> None:
    """A job asks for no more GPUs or nodes than it uses: more would be paid for and left
    idle. Several such jobs share a node instead."""
    for section, (keys, job) in SINGLE_GPU_SECTIONS.items():
        for key in keys:
            value = config[section]["resources"][key]
            if value > 1:
                raise ValueError(
                    f"config: {section}.resources.{key} is {value}, but {job}; set it to 1 "
                    "(Slurm runs several jobs on a node side by side)"
                )


def own_vocabulary(vocabularies: Mapping[str, Any], location: str) -> str | None:
    """The first of ``vocabularies`` (the config's) of type pretrained whose checkpoint is
    ``location`` (the checkpoint's own tokenizer), or None."""
    for name, vocabulary in vocabularies.items():
        if vocabulary["type"] == "pretrained" and resolve_location(
            vocabulary["checkpoint"]
        ) == resolve_location(location):
            return name
    return None


def _check_external_teachers(config: ValidatedConfig) -> None:
    """A student of an external teacher trains on the corpus tokenised by the teacher's own
    vocabulary, and a method that reads the teacher's logits needs a checkpoint with an MLM
    head (told by its config.json's architectures where the checkpoint is a folder)."""
    external = config["external_models"]
    for name, entry in config["distillation"].items():
        teacher = entry["teacher"]
        if teacher not in external:
            continue
        key = f"config: distillation.{name}.teacher"
        if own_vocabulary(config["vocabularies"], external[teacher]) is None:
            raise ValueError(
                f"{key} {teacher!r} is an external model, whose student trains on the corpus in "
                f"the teacher's own tokenizer: add a vocabularies entry with type: pretrained "
                f"and checkpoint: {external[teacher]}"
            )
        architectures = checkpoint_architectures(external[teacher], f"external_models.{teacher}")
        if architectures is not None:
            check_teacher_head(
                entry["method"],
                has_mlm_head(architectures),
                f"{key} {teacher!r} (architectures {architectures})",
            )
