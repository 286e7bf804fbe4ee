# Names and helpers shared by the workflow files, all derived from the validated config; at its
# end, every stage's names and input functions (the Snakefile includes this file first).

import os
from pathlib import Path

from snakemake.logging import logger

from biocompact.workflow.cluster_fit import (
    DryRunFitCheck,
    check_jobs_fit,
    submitted_requests,
)
from biocompact.workflow.configured_inputs import glob_files, require_files
from biocompact.corpus.listing import pubmed_file_names
from biocompact.finetuning.settings import resolve_task
from biocompact.locations import resolve_location
from biocompact.tracking.trackers import check_backends
from biocompact.workflow import slurm_resources
from biocompact.workflow.config_checks import check_config
from biocompact.workflow.config_sections import parse_config
from biocompact.workflow.interrupts import pass_interrupts_to_jobs
from biocompact.workflow.priorities import (
    PRIORITY_CHAIN,
    JobPriorities,
    model_vocabulary,
    students_from_models,
)
from biocompact.workflow.slurm_resources import (
    gpu_job_threads,
    one_gpu,
    timing_threads,
    without_resources,
)

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
# SIGINT to Snakemake (`kill -INT PID`, not only Ctrl-C, which the terminal sends to every
# process of the run) stops its running jobs too: Snakemake itself waits for them to end.
pass_interrupts_to_jobs()


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
    vocabulary = model_vocabulary(config, wildcards.model)
    return expand(rules.tokenize_corpus.output.corpus, vocab=vocabulary)[0]


def model_corpus_record(wildcards):
    """The record of that corpus (its sequence length, packing and split sizes)."""
    vocabulary = model_vocabulary(config, wildcards.model)
    return expand(rules.tokenize_corpus.output.record, vocab=vocabulary)[0]


def gpu_job_resources(entry):
    """Slurm resources of a GPU job from the ``resources`` block of config ``entry`` (or of
    a function of the wildcards giving the entry), its CPUs at most what Snakemake gives one
    job (biocompact.workflow.slurm_resources)."""
    return slurm_resources.gpu_job_resources(entry, THREAD_CAPS)


# Among the jobs ready to run, Snakemake starts those of higher priority first: the models
# others are trained from, then the other models, then chains of jobs (PRIORITY_CHAIN), then
# fine-tuning (biocompact.workflow.priorities).
PRIORITIES = JobPriorities(config)
CORPUS_PRIORITY = PRIORITIES.corpus()
# Students whose student_init names a model of this config, and that model.
STUDENT_FROM_MODEL = students_from_models(config)


def model_priority(wildcards):
    """Priority of the job that builds model ``wildcards.model``."""
    return PRIORITIES.model(wildcards.model)


def vocabulary_priority(wildcards):
    """Priority of the jobs that build vocabulary ``wildcards.vocab`` and its corpus."""
    return PRIORITIES.vocabulary(wildcards.vocab)


# The threads of the timing jobs (efficiency, evaluate_compressed): every core Snakemake may use.
TIMING_THREADS = timing_threads(workflow.resource_settings.cores, len(os.sched_getaffinity(0)))


def slurm_requests():
    """What the planned jobs but the local rules' ask Slurm for (Snakemake keeps the names of
    the local rules in the workflow's _localrules alone)."""
    return submitted_requests(workflow.dag.needrun_jobs(), workflow._localrules)


# With the slurm profile, every job that no node of its partition could ever run (too many
# CPUs, MB, GPUs or minutes: Slurm would keep it pending) stops the run before any job is
# submitted, named with what it asks and what the partition has (sinfo); a dry run prints the
# same lines as a warning once the DAG is built, and goes on.
onstart:
    if workflow.executor_plugin.name == "slurm":
        check_jobs_fit(slurm_requests())


logger.addHandler(DryRunFitCheck(workflow, slurm_requests))


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


# The whole config as the jobs that read more than their params parse it: last, after every
# section's own checks, whose messages come first.
parse_config(config)
