# Fine-tuning: names and input functions of finetuning.smk (included by common.smk), also
# used by the stages that fine-tune on or read a task (task distillation, compression, report,
# release).
# A task's settings are resolved from the validated config when read
# (biocompact.finetuning.settings: the dataset a task names filled in, hyperparameters of the
# preset, then the task, then finetuning.model_overrides); the config is never changed. Rules
# pass plain entries as params (Snakemake compares plain values), jobs parse them.

from biocompact.finetuning.settings import check_model_overrides, resolve_task, task_entry
from biocompact.finetuning.task_labels import check_task_labels
from biocompact.taskfiles.folds import task_files
from biocompact.workflow.model_shapes import model_positions

check_model_overrides(config["finetuning"], ALL_MODELS)
# every task parsed and checked with its preset's hyperparameters, before any job runs
FINETUNING_TASKS = {task: resolve_task(config["finetuning"], task) for task in TASKS}
# and its labels, read from its files: label_names, negative/positive labels, dev and test
for _task in FINETUNING_TASKS.values():
    check_task_labels(_task)
# the tasks whose fine-tuned models can be saved: one model per seed (no folds)
SAVED_TASKS = [task for task in TASKS if not FINETUNING_TASKS[task].folds]
# finetuning.save_models: none, best or all (finetune_kept, finetuning.smk)
SAVE_MODELS = config["finetuning"]["save_models"]
# The folder of the model a seed's run saved (finetune_kept, and finetune_saved for compression).
SEED_MODEL = "results/finetuning/{model}/{task}/seed{seed}/model"


def finetune_config(model, task):
    """The entry of ``task`` as ``model`` is fine-tuned on it (settings.task_entry)."""
    return task_entry(config["finetuning"], task, model)


def task_data_config(task):
    """The entry of ``task`` without its hyperparameters (what a baseline depends on)."""
    return task_entry(config["finetuning"], task, training=False)


def finetune_task(wildcards):
    """Params: the task entry of fine-tuning ``wildcards.model`` on ``wildcards.task``."""
    return finetune_config(wildcards.model, wildcards.task)


def data_task(wildcards):
    """Params: the task entry of ``wildcards.task`` without its hyperparameters."""
    return task_data_config(wildcards.task)


def task_data(wildcards):
    """Input: the data files of task ``wildcards.task``."""
    return task_files(FINETUNING_TASKS[wildcards.task])


def model_of(wildcards):
    """Input: what the DAG builds before model ``wildcards.model`` is used (common.model_input)."""
    return model_input(wildcards.model)


def model_path_of(wildcards):
    """Params: the folder (or hub name) model ``wildcards.model`` is loaded from."""
    return model_dir(wildcards.model)


def seed_models(wildcards):
    """Input: the model every seed of (``wildcards.model``, ``wildcards.task``) saved."""
    return expand(SEED_MODEL, seed=SEEDS, **wildcards)


def base_model_contamination(wildcards):
    """Input: the corpus's contamination.json where model ``wildcards.model`` was trained
    here on the decontaminated corpus, else []: the published model's card says which."""
    return CONTAMINATION if wildcards.model in PRETRAINED + DISTILLED else []


def seed_metrics(wildcards):
    """Input: the metrics.json of every seed of (``wildcards.model``, ``wildcards.task``)."""
    return expand(rules.finetune.output.metrics, seed=SEEDS, **wildcards)


def _check_sequence_lengths():
    """Each fine-tuned model whose checkpoint fixes its positions takes each task's
    max_seq_length (its preset's, the task's or the model's override)."""
    for model in FINETUNE_MODELS:
        positions = model_positions(model, config)
        for task in TASKS if positions else []:
            length = resolve_task(config["finetuning"], task, model=model).training.max_seq_length
            if length > positions:
                raise ValueError(
                    f"config: finetuning.tasks.{task}: max_seq_length {length} (preset "
                    f"{FINETUNING_TASKS[task].preset!r}) is longer than the {positions} positions "
                    f"of model {model!r}; lower it in finetuning.model_overrides.{model}"
                )


_check_sequence_lengths()
