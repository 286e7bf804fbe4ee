# Names and helpers shared by the workflow files, all derived from the validated config.

from pathlib import Path

from biocompact.corpus.listing import pubmed_file_names
from biocompact.locations import resolve_location

# A list, a numbered range or "all" (NCBI's listing, fetched once and cached).
PUBMED_BASELINE = pubmed_file_names(config["corpus"]["pubmed"], "baseline", "results/corpus/pubmed/listing")
PUBMED_UPDATES = pubmed_file_names(config["corpus"]["pubmed"], "updates", "results/corpus/pubmed/listing")
PUBMED_STEMS = PUBMED_BASELINE + PUBMED_UPDATES  # NCBI order: baseline, then updates
PMC_FILES = config["corpus"]["pmc"]["files"]
TEXT_SOURCES = list(config["corpus"]["text"]["sources"])  # local text files (bring your own)
VOCABS = list(config["vocabularies"])
PRETRAINED = list(config["pretraining"])
DISTILLED = list(config["distillation"])
EXTERNAL = dict(config["external_models"])
ALL_MODELS = PRETRAINED + DISTILLED + list(EXTERNAL)
FINETUNE_MODELS = config["finetuning"]["models"]
TASKS = list(config["finetuning"]["tasks"])
SEEDS = config["finetuning"]["seeds"]
SENTENCE_SHARDS = expand("results/corpus/sentences/{stem}.txt.gz", stem=PUBMED_STEMS) + expand(
    "results/corpus/sentences/pmc/{pmc_file}.txt.gz", pmc_file=PMC_FILES
) + expand(
    "results/corpus/sentences/text/{text_source}.txt.gz", text_source=TEXT_SOURCES
)


def _check_names():
    seen = {}
    for section, names in (("pretraining", PRETRAINED), ("distillation", DISTILLED), ("external_models", EXTERNAL)):
        for name in names:
            if name in seen:
                raise ValueError(f"config: model name {name!r} is used in both {seen[name]} and {section}")
            seen[name] = section
    if len(set(PUBMED_STEMS)) != len(PUBMED_STEMS):
        raise ValueError("config: corpus.pubmed.baseline and updates repeat a file name")
    if PUBMED_UPDATES and not PUBMED_BASELINE:
        raise ValueError("config: corpus.pubmed.updates names files but baseline names none")
    if VOCABS and not SENTENCE_SHARDS:
        raise ValueError(f"config: vocabularies {VOCABS} need a corpus, but corpus names no file")
    for name, settings in config["pretraining"].items():
        if settings["vocabulary"] not in VOCABS:
            raise ValueError(f"config: pretraining.{name}.vocabulary {settings['vocabulary']!r} is not in vocabularies")
    for name, settings in config["distillation"].items():
        if settings["teacher"] not in PRETRAINED + DISTILLED:
            raise ValueError(f"config: distillation.{name}.teacher {settings['teacher']!r} is not a pretrained or distilled model")
        teacher = config["pretraining"].get(settings["teacher"], {})
        if teacher.get("objective") == "electra" or (teacher.get("family") == "electra" and not teacher.get("objective")):
            raise ValueError(f"config: distillation.{name}.teacher {settings['teacher']!r} is an ELECTRA discriminator, which has no MLM head to distil")
    for name in FINETUNE_MODELS:
        if name not in seen:
            raise ValueError(f"config: finetuning.models names {name!r}, which is not a model of pretraining, distillation or external_models")
    for task, settings in config["finetuning"]["tasks"].items():
        if settings["preset"] not in config["finetuning"]["presets"]:
            raise ValueError(f"config: finetuning.tasks.{task}.preset {settings['preset']!r} is not in finetuning.presets")


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
        if entry["reference"]:
            locations[f"vocabularies.{name}.reference"] = entry["reference"]
    for key, location in locations.items():
        resolve_location(location, key)


_check_names()
_check_locations()


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
        return f"results/pretraining/{name}/model"
    if name in DISTILLED:
        return f"results/distillation/{name}/model"
    return resolve_location(EXTERNAL[name], f"external_models.{name}")


def model_input(name):
    """What the DAG must build before model ``name`` can be used ([] for external models)."""
    return [] if name in EXTERNAL else [model_dir(name)]


def model_vocabulary(name):
    """The vocabulary whose tokenised corpus a pretrained or distilled model trains on."""
    if name in PRETRAINED:
        return config["pretraining"][name]["vocabulary"]
    return model_vocabulary(config["distillation"][name]["teacher"])


def task_config(task):
    """A task's config with its hyperparameters resolved (preset, then task overrides)."""
    settings = dict(config["finetuning"]["tasks"][task])
    settings["name"] = task
    settings["hyperparameters"] = {
        **config["finetuning"]["presets"][settings["preset"]],
        **settings["hyperparameters"],
    }
    return settings


def task_data_config(task):
    """A task's config without its training hyperparameters (what a baseline depends on)."""
    settings = task_config(task)
    del settings["hyperparameters"]
    return settings


def finetune_config(model, task):
    """``task_config`` with the per-model overrides of ``finetuning.model_overrides`` applied."""
    settings = task_config(task)
    overrides = config["finetuning"]["model_overrides"].get(model, {})
    settings["hyperparameters"] = {**settings["hyperparameters"], **overrides}
    return settings


def training_settings(section):
    """The optimisation settings of a pretraining or distillation entry (what the loop needs)."""
    keys = ("steps", "batch_size", "gradient_accumulation", "learning_rate", "warmup_steps",
            "weight_decay", "max_grad_norm", "adam_beta1", "adam_beta2", "adam_epsilon",
            "seed", "log_every", "checkpoint_every", "peak_tflops")
    return {key: section[key] for key in keys}


def gpu_job_resources(entry):
    """Slurm resources of a GPU job from a config ``resources`` block (schema: gpu_job).

    ``entry(wildcards)`` is the config entry holding the block. In the Slurm plugin's
    names: ``gpu`` becomes --gpus, ``cpus_per_gpu`` --cpus-per-gpu, or ``cpus_per_task``
    --cpus-per-task for a job without GPUs.
    """

    def pick(key):
        return lambda wildcards: entry(wildcards)["resources"][key]

    def cpus_without_gpu(wildcards):
        block = entry(wildcards)["resources"]
        return 0 if block["gpus"] else block["cpus_per_gpu"]

    return {
        "gpu": pick("gpus"),
        "cpus_per_gpu": pick("cpus_per_gpu"),
        "cpus_per_task": cpus_without_gpu,
        "mem_mb": pick("mem_mb"),
        "runtime": pick("runtime"),
    }


def gpu_job_threads(entry):
    """Threads of a GPU job: every CPU it asks for (Snakemake caps them at --cores locally)."""

    def threads(wildcards):
        block = entry(wildcards)["resources"]
        return max(1, block["gpus"]) * block["cpus_per_gpu"]

    return threads


# Task-specific distillation (seed 003, task_distillation.smk): names and helpers.

TD_SETTINGS = config["task_distillation"]
TD_EXPERIMENTS = TD_SETTINGS["experiments"]
TD_TRANSFER = TD_SETTINGS["transfer_sets"]
TD_SEEDS = TD_SETTINGS["seeds"]
TD_FAMILIES = ("re", "dc", "nli", "qa_yesno")
TD_LABELLED_FORMATS = ("biobert_tsv", "blue_tsv", "mednli_jsonl", "bioasq_yesno_json", "pubmedqa_json")
TD_TEACHER = "results/task_distillation/teachers/{model}/{task}/seed{seed}"
TD_SUMMARY = "results/task_distillation/summary.csv"


def _check_task_distillation():
    """Names that exist, tasks a teacher can be distilled from (single-label classification or
    yes/no, no folds; hoc_tsv is multi-label), one training per shared teacher."""
    teachers = {}
    for name, settings in TD_TRANSFER.items():
        if ("path" in settings) == ("randomised" in settings):
            raise ValueError(f"config: task_distillation.transfer_sets.{name} needs either path or randomised")
    for name, experiment in TD_EXPERIMENTS.items():
        where = f"config: task_distillation.experiments.{name}"
        task = config["finetuning"]["tasks"].get(experiment["task"])
        if task is None:
            raise ValueError(f"{where}.task {experiment['task']!r} is not in finetuning.tasks")
        if task["family"] not in TD_FAMILIES or task["format"] == "hoc_tsv":
            raise ValueError(f"{where}: task {experiment['task']!r} is not single-label classification or yes/no")
        if task["folds"]:
            raise ValueError(f"{where}: task {experiment['task']!r} is cross-validated; the teacher is one model")
        for role in ("teacher", "student"):
            if experiment[role] not in ALL_MODELS:
                raise ValueError(f"{where}.{role} {experiment[role]!r} is not a model of this config")
        for transfer in experiment["transfer"]:
            if transfer not in TD_TRANSFER:
                raise ValueError(f"{where}.transfer names {transfer!r}, which is not in task_distillation.transfer_sets")
        key = (experiment["teacher"], experiment["task"], experiment["teacher_seed"])
        if teachers.setdefault(key, experiment["teacher_training"]) != experiment["teacher_training"]:
            raise ValueError(f"{where}: teacher {key} is trained with other teacher_training in another experiment")


_check_task_distillation()


def td_task(experiment, training):
    """The experiment's task data with its ``teacher_training`` or ``student_training``."""
    settings = task_data_config(TD_EXPERIMENTS[experiment]["task"])
    settings["hyperparameters"] = TD_EXPERIMENTS[experiment][training]
    return settings


def td_teacher_training(wildcards):
    """The teacher_training of the experiments whose teacher is (model, task, seed)."""
    for experiment in TD_EXPERIMENTS.values():
        if (experiment["teacher"], experiment["task"], experiment["teacher_seed"]) == (
            wildcards.model, wildcards.task, int(wildcards.seed)
        ):
            return experiment["teacher_training"]
    raise ValueError(f"no task_distillation experiment has the teacher {wildcards}")


def td_teacher_dir(experiment):
    """The folder of the experiment's teacher (shared by experiments with the same one)."""
    entry = TD_EXPERIMENTS[experiment]
    return TD_TEACHER.format(model=entry["teacher"], task=entry["task"], seed=entry["teacher_seed"])


def td_direct_transfer(experiment):
    """The transfer sets of an experiment fine-tuned on directly: those with their own labels."""
    entry = TD_EXPERIMENTS[experiment]
    if not entry["direct_finetuning"]:
        return []
    return [t for t in entry["transfer"] if TD_TRANSFER[t].get("format") in TD_LABELLED_FORMATS]


def td_runs():
    """Every evaluation of every experiment, with the keys of the summary."""
    runs = []
    for experiment, entry in TD_EXPERIMENTS.items():
        keys = {"experiment": experiment, "task": entry["task"], "teacher": entry["teacher"], "student": entry["student"]}
        runs.append({**keys, "transfer": "", "setting": "teacher",
                     "path": f"{td_teacher_dir(experiment)}/evaluation.json"})
        runs += [{**keys, "transfer": "", "setting": "untrained",
                  "path": f"results/task_distillation/experiments/{experiment}/untrained/seed{seed}/evaluation.json"}
                 for seed in TD_SEEDS]
        for method, transfers in (("distilled", entry["transfer"]), ("direct", td_direct_transfer(experiment))):
            runs += [{**keys, "transfer": transfer, "setting": method,
                      "path": f"results/task_distillation/experiments/{experiment}/{transfer}/{method}/seed{seed}/evaluation.json"}
                     for transfer in transfers for seed in TD_SEEDS]
    return runs


def td_seed_outputs(pattern):
    """``pattern`` (with ``{seed}``) for every seed, its other wildcards left in place."""
    return expand(pattern, seed=TD_SEEDS, allow_missing=True)
