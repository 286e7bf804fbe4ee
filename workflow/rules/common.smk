# Names and helpers shared by the workflow files, all derived from the validated config.

import os
from pathlib import Path

from biocompact.workflow.cluster_fit import check_jobs_fit, job_request
from biocompact.workflow.configured_inputs import (
    glob_files,
    local_path,
    local_source_files,
    require_files,
    task_input_files,
)
from biocompact.corpus.listing import pubmed_file_names
from biocompact.distillation.layer_map import resolve_layer_map, resolve_student_layers
from biocompact.distillation.methods import method_options
from biocompact.distillation.teacher_head import check_teacher_head, has_mlm_head
from biocompact.finetuning.settings import resolve_task
from biocompact.locations import resolve_location
from biocompact.workflow.model_shapes import checkpoint_architectures, model_depth
from biocompact.pretraining.objective_families import objective_for
from biocompact.tracking.trackers import check_backends
from biocompact.workflow import slurm_resources
from biocompact.workflow.slurm_resources import gpu_job_threads

# A list, a numbered range or "all" (NCBI's listing, fetched once and cached).
PUBMED_BASELINE = pubmed_file_names(
    config["corpus"]["pubmed"], "baseline", "results/corpus/pubmed/listing"
)
PUBMED_UPDATES = pubmed_file_names(
    config["corpus"]["pubmed"], "updates", "results/corpus/pubmed/listing"
)
PUBMED_STEMS = PUBMED_BASELINE + PUBMED_UPDATES  # NCBI order: baseline, then updates
PMC_FILES = config["corpus"]["pmc"]["files"]
TEXT_SOURCES = list(config["corpus"]["text"]["sources"])  # local text files (bring your own)
# Each local text source's files, its paths and glob matches in order (a pattern matching no
# file stops the run here, naming its key).
TEXT_SOURCE_FILES = {
    name: glob_files(source["files"], f"corpus.text.sources.{name}.files")
    for name, source in config["corpus"]["text"]["sources"].items()
}
VOCABS = list(config["vocabularies"])
PRETRAINED = list(config["pretraining"])
DISTILLED = list(config["distillation"])
EXTERNAL = dict(config["external_models"])
ALL_MODELS = PRETRAINED + DISTILLED + list(EXTERNAL)
FINETUNE_MODELS = config["finetuning"]["models"]
TASKS = list(config["finetuning"]["tasks"])
SEEDS = config["finetuning"]["seeds"]
# The most threads Snakemake gives one job (--max-threads, --cores): a job asks Slurm for no
# more CPUs than that
THREAD_CAPS = (workflow.resource_settings.max_threads, workflow.resource_settings.cores)


def _check_names():
    seen = {}
    for section, names in (
        ("pretraining", PRETRAINED),
        ("distillation", DISTILLED),
        ("external_models", EXTERNAL),
    ):
        for name in names:
            if name in seen:
                raise ValueError(
                    f"config: model name {name!r} is used in both {seen[name]} and {section}"
                )
            seen[name] = section
    if len(set(PUBMED_STEMS)) != len(PUBMED_STEMS):
        raise ValueError("config: corpus.pubmed.baseline and updates repeat a file name")
    if PUBMED_UPDATES and not PUBMED_BASELINE:
        raise ValueError("config: corpus.pubmed.updates names files but baseline names none")
    if VOCABS and not (PUBMED_STEMS or PMC_FILES or TEXT_SOURCES):
        raise ValueError(f"config: vocabularies {VOCABS} need a corpus, but corpus names no file")
    for name, settings in config["pretraining"].items():
        if settings["vocabulary"] not in VOCABS:
            raise ValueError(
                f"config: pretraining.{name}.vocabulary {settings['vocabulary']!r} is not in vocabularies"
            )
    for name, settings in config["distillation"].items():
        if settings["teacher"] not in ALL_MODELS:
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
    for name in FINETUNE_MODELS:
        if name not in seen:
            raise ValueError(
                f"config: finetuning.models names {name!r}, which is not a model of pretraining, distillation or external_models"
            )


def _check_locations():
    """Every model location of the config names a folder, a hub name or a package's folder:
    a wrong one stops the run here, naming its key, before any job trains."""
    locations = {f"external_models.{name}": location for name, location in EXTERNAL.items()}
    for name, entry in config["pretraining"].items():
        if entry["init"] != "scratch":
            locations[f"pretraining.{name}.init"] = entry["init"]
    for name, entry in config["distillation"].items():
        if entry["student_init"] not in ("teacher_layers", "random", *ALL_MODELS):
            locations[f"distillation.{name}.student_init"] = entry["student_init"]
    for name, entry in config["vocabularies"].items():
        for key in ("reference", "checkpoint"):
            if entry[key]:
                locations[f"vocabularies.{name}.{key}"] = entry[key]
    for key, location in locations.items():
        resolve_location(location, key)


def _check_input_files():
    """Every input file the config names exists (task data, PubMed and PMC files and dataset
    mirrors that are local), whatever results/ holds from an earlier run: else the run
    stops here, naming each missing file's key."""
    pubmed, pmc = config["corpus"]["pubmed"], config["corpus"]["pmc"]
    files = local_source_files(
        pubmed["source"],
        [f"{stem}.xml.gz" for stem in PUBMED_BASELINE],
        "corpus.pubmed.baseline",
        "baseline",
    )
    files += local_source_files(
        pubmed["source"],
        [f"{stem}.xml.gz" for stem in PUBMED_UPDATES],
        "corpus.pubmed.updates",
        "updatefiles",
    )
    files += local_source_files(pmc["source"], PMC_FILES, "corpus.pmc.files")
    for task in TASKS:
        files += task_input_files(task, resolve_task(config["finetuning"], task, training=False))
    for source, url in config["datasets"]["mirrors"].items():
        if source in DATASET_SOURCES and local_path(url) is not None:
            files.append((f"datasets.mirrors.{source}", local_path(url)))
    require_files(files)


def _check_layers():
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


def _check_pretraining():
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


def _check_single_gpu_jobs():
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


def one_gpu(entry):
    """Config ``entry`` with its resources cut to one GPU (none where it has none): for the
    jobs of a section that run in one process while its training jobs use every GPU."""
    resources = entry["resources"]
    return {**entry, "resources": {**resources, "gpus": min(resources["gpus"], 1)}}


def own_vocabulary(location):
    """The first vocabulary of type pretrained whose checkpoint is ``location`` (the
    checkpoint's own tokenizer), or None."""
    for name, vocabulary in config["vocabularies"].items():
        if vocabulary["type"] == "pretrained" and resolve_location(
            vocabulary["checkpoint"]
        ) == resolve_location(location):
            return name
    return None


def _check_external_teachers():
    """A student of an external teacher trains on the corpus tokenised by the teacher's own
    vocabulary, and a method that reads the teacher's logits needs a checkpoint with an MLM
    head (told by its config.json's architectures where the checkpoint is a folder)."""
    for name, entry in config["distillation"].items():
        teacher = entry["teacher"]
        if teacher not in EXTERNAL:
            continue
        key = f"config: distillation.{name}.teacher"
        if own_vocabulary(EXTERNAL[teacher]) is None:
            raise ValueError(
                f"{key} {teacher!r} is an external model, whose student trains on the corpus in "
                f"the teacher's own tokenizer: add a vocabularies entry with type: pretrained "
                f"and checkpoint: {EXTERNAL[teacher]}"
            )
        architectures = checkpoint_architectures(EXTERNAL[teacher], f"external_models.{teacher}")
        if architectures is not None:
            check_teacher_head(
                entry["method"],
                has_mlm_head(architectures),
                f"{key} {teacher!r} (architectures {architectures})",
            )


_check_names()
_check_locations()
_check_external_teachers()
_check_input_files()
_check_layers()
_check_pretraining()
_check_single_gpu_jobs()
check_backends(config["tracking"]["backends"])


wildcard_constraints:
    stem="|".join(PUBMED_STEMS),
    pmc_file="|".join(PMC_FILES) or "(?!)",
    text_source="|".join(TEXT_SOURCES) or "(?!)",
    vocab="|".join(VOCABS),
    model="|".join(ALL_MODELS),
    task="|".join(TASKS),
    seed=r"\d+",


def model_dir(name):
    """The Hugging Face folder (or hub name) of model ``name``: the location of an external
    model resolved (``python-package:`` to its folder), so every stage loads it alike."""
    if name in PRETRAINED:
        return expand(rules.pretrain.output.model, model=name)[0]
    if name in DISTILLED:
        return expand(rules.distill.output.model, model=name)[0]
    return resolve_location(EXTERNAL[name], f"external_models.{name}")


def model_input(name):
    """What the DAG must build before model ``name`` can be used ([] for external models)."""
    return [] if name in EXTERNAL else [model_dir(name)]


def model_corpus(wildcards):
    """The tokenised corpus that model ``wildcards.model`` trains on (pretraining, distillation)."""
    vocabulary = model_vocabulary(wildcards.model)
    return expand(rules.tokenize_corpus.output.corpus, vocab=vocabulary)[0]


def model_vocabulary(name):
    """The vocabulary whose tokenised corpus a pretrained or distilled model trains on (an
    external teacher's: its own vocabulary, checked by _check_external_teachers)."""
    if name in PRETRAINED:
        return config["pretraining"][name]["vocabulary"]
    if name in EXTERNAL:
        return own_vocabulary(EXTERNAL[name])
    return model_vocabulary(config["distillation"][name]["teacher"])


def gpu_job_resources(entry):
    """Slurm resources of a GPU job from the ``resources`` block of config ``entry`` (or of
    a function of the wildcards giving the entry), its CPUs at most what Snakemake gives one
    job (biocompact.workflow.slurm_resources)."""
    return slurm_resources.gpu_job_resources(entry, THREAD_CAPS)


# Among the jobs ready to run, Snakemake starts those of higher priority first (locally, and
# when it submits to Slurm). Language models come first, those that other models are trained
# from (distillation teachers, students' initial models) before the rest; then the jobs that
# start a chain of later jobs or run long (task distillation, compression, efficiency); the
# independent fine-tuning runs last, so that they fill the cores at the end instead of a
# chain of jobs waiting on each other (docs/speed.md: the demo on two cores).
PRIORITY_UPSTREAM_MODEL = 30
PRIORITY_MODEL = 20
PRIORITY_CHAIN = 10
# Students whose student_init names a model of this config (Lewis et al. 2020: an MLM-pretrained
# student), and that model.
STUDENT_FROM_MODEL = {
    name: entry["student_init"]
    for name, entry in config["distillation"].items()
    if entry["student_init"] in ALL_MODELS
}
UPSTREAM_MODELS = {entry["teacher"] for entry in config["distillation"].values()} | set(
    STUDENT_FROM_MODEL.values()
)


def model_priority(wildcards):
    """Priority of the job that builds model ``wildcards.model``."""
    return _priority_of_model(wildcards.model)


def _priority_of_model(name):
    return PRIORITY_UPSTREAM_MODEL if name in UPSTREAM_MODELS else PRIORITY_MODEL


def vocabulary_priority(wildcards):
    """Priority of the jobs that build vocabulary ``wildcards.vocab`` and its tokenised
    corpus: the highest of the models trained on it, so that the path to a teacher is not
    overtaken by the fine-tuning runs of models that are ready (e.g. external ones)."""
    return max(
        (
            _priority_of_model(name)
            for name in PRETRAINED + DISTILLED
            if model_vocabulary(name) == wildcards.vocab
        ),
        default=0,
    )


# The corpus jobs lead to every vocabulary: the highest priority of any trained model.
CORPUS_PRIORITY = max(map(_priority_of_model, PRETRAINED + DISTILLED), default=0)


def data_job_resources(rule):
    """Memory and time limit of data job ``rule`` (config data_jobs)."""
    entry = config["data_jobs"][rule]
    return {"mem_mb": entry["mem_mb"], "runtime": entry["runtime"]}


def job_entry(section, name):
    """Entry ``name`` of config ``section`` as its job reads it (the stage's settings
    dataclass): the Slurm resources left out, as they change no result."""
    return {key: value for key, value in config[section][name].items() if key != "resources"}


# The threads of the timing jobs (efficiency, evaluate_compressed): every core Snakemake may use
# (at most the CPUs this process may run on), so that in a local run no other job runs beside
# their measurements; the Slurm profile sets its own (set-threads), 4 where no core count is
# given.
TIMING_THREADS = (
    min(workflow.resource_settings.cores, len(os.sched_getaffinity(0)))
    if workflow.resource_settings.cores
    else 4
)


# With the slurm profile, every job that no node of its partition could ever run (too many
# CPUs, MB, GPUs or minutes: Slurm would keep it pending) stops the run before any job is
# submitted, named with what it asks and what the partition has (sinfo).
onstart:
    if workflow.executor_plugin.name == "slurm":
        check_jobs_fit(
            job_request(
                job.rule.name,
                ", ".join(f"{key}={value}" for key, value in job.wildcards_dict.items()),
                job.threads,
                job.resources,
            )
            for job in workflow.dag.needrun_jobs()
            if not job.is_local
        )
