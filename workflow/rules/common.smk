# Names and helpers shared by the workflow files, all derived from the validated config; at its
# end, every stage's names and input functions (the Snakefile includes this file first).

import os
from pathlib import Path

from biocompact.workflow.cluster_fit import check_jobs_fit, job_request
from biocompact.workflow.configured_inputs import glob_files, require_files
from biocompact.corpus.listing import pubmed_file_names
from biocompact.finetuning.settings import resolve_task
from biocompact.locations import resolve_location
from biocompact.tracking.trackers import check_backends
from biocompact.workflow import slurm_resources
from biocompact.workflow.config_checks import check_config, own_vocabulary
from biocompact.workflow.slurm_resources import gpu_job_threads, one_gpu

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


check_config(config, PUBMED_BASELINE, PUBMED_UPDATES)
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


def model_corpus_record(wildcards):
    """The record of that corpus (its sequence length, packing and split sizes)."""
    vocabulary = model_vocabulary(wildcards.model)
    return expand(rules.tokenize_corpus.output.record, vocab=vocabulary)[0]


def model_vocabulary(name):
    """The vocabulary whose tokenised corpus a pretrained or distilled model trains on (an
    external teacher's: its own vocabulary, checked by _check_external_teachers)."""
    if name in PRETRAINED:
        return config["pretraining"][name]["vocabulary"]
    if name in EXTERNAL:
        return own_vocabulary(config["vocabularies"], EXTERNAL[name])
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


# Every stage's names and input functions (STAGE_common.smk), before any stage rule file. A
# stage rule file uses at parse time only these names and the rules of its own file (another
# file's rules only inside input functions), so the Snakefile may include the stage rule
# files in any order. A later file here may use the names of an earlier one (finetuning's
# tasks in task distillation, compression, report and release).
include: "datasets_common.smk"
include: "corpus_common.smk"
include: "vocab_common.smk"
include: "pretraining_common.smk"
include: "distillation_common.smk"
include: "finetuning_common.smk"
include: "task_distillation_common.smk"
include: "compression_common.smk"
include: "report_common.smk"
include: "release_common.smk"
