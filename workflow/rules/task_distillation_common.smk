# Task-specific distillation: names and input functions of task_distillation.smk, which
# includes this file. Uses ALL_MODELS and task_data_config of common.smk and task_files
# (imported by finetuning.smk).

from biocompact.configured_inputs import require_files
from biocompact.task_distillation.settings import ExperimentSettings, TransferSetSettings

# Every entry parsed and checked here, before any job runs. Jobs get plain values (the
# entry, or the parts of it they read): Snakemake's params trigger compares only those.
TD_TRANSFER = {
    name: TransferSetSettings.from_entry(name, entry)
    for name, entry in config["task_distillation"]["transfer_sets"].items()
}
TD_EXPERIMENTS = {
    name: ExperimentSettings.from_entry(name, entry)
    for name, entry in config["task_distillation"]["experiments"].items()
}
TD_SEEDS = config["task_distillation"]["seeds"]
TD_FAMILIES = ("re", "dc", "nli", "qa_yesno")  # single-label classification or yes/no


def _check_task_distillation():
    """Names that exist, tasks a teacher can be distilled from (single-label classification or
    yes/no, no folds; hoc_tsv is multi-label), one training per shared teacher."""
    teachers = {}
    for name, experiment in TD_EXPERIMENTS.items():
        where = f"config: task_distillation.experiments.{name}"
        task = config["finetuning"]["tasks"].get(experiment.task)
        if task is None:
            raise ValueError(f"{where}.task {experiment.task!r} is not in finetuning.tasks")
        if task["family"] not in TD_FAMILIES or task["format"] == "hoc_tsv":
            raise ValueError(
                f"{where}: task {experiment.task!r} is not single-label classification or yes/no"
            )
        if task["folds"]:
            raise ValueError(
                f"{where}: task {experiment.task!r} is cross-validated; the teacher is one model"
            )
        for role in ("teacher", "student"):
            model = getattr(experiment, role)
            if model not in ALL_MODELS:
                raise ValueError(f"{where}.{role} {model!r} is not a model of this config")
        for transfer in experiment.transfer:
            if transfer not in TD_TRANSFER:
                raise ValueError(
                    f"{where}.transfer names {transfer!r}, which is not in task_distillation.transfer_sets"
                )
        training = teachers.setdefault(experiment.teacher_key, experiment.teacher_training)
        if training != experiment.teacher_training:
            raise ValueError(
                f"{where}: teacher {experiment.teacher_key} is trained with other teacher_training "
                "in another experiment"
            )


_check_task_distillation()
# every transfer set's file, or its randomised source, exists (or is an output of this DAG)
require_files(
    (
        (f"task_distillation.transfer_sets.{name}.randomised.source", entry.randomised.source)
        if entry.randomised
        else (f"task_distillation.transfer_sets.{name}.path", entry.path)
    )
    for name, entry in TD_TRANSFER.items()
)


def td_task(experiment, training):
    """The experiment's task data with its ``teacher_training`` or ``student_training``."""
    settings = task_data_config(TD_EXPERIMENTS[experiment].task)
    settings["hyperparameters"] = getattr(TD_EXPERIMENTS[experiment], training)
    return settings


def td_task_files(wildcards):
    """The data files of the task of experiment ``wildcards.experiment``."""
    return task_files(task_data_config(TD_EXPERIMENTS[wildcards.experiment].task))


def td_teacher_training(wildcards):
    """The teacher_training of the experiments whose teacher is (model, task, seed)."""
    key = (wildcards.model, wildcards.task, int(wildcards.seed))
    for experiment in TD_EXPERIMENTS.values():
        if experiment.teacher_key == key:
            return experiment.teacher_training
    raise ValueError(f"no task_distillation experiment has the teacher {wildcards}")


def td_teacher_path(experiment, key):
    """Output ``key`` of the experiment's teacher (shared by experiments with the same one)."""
    model, task, seed = TD_EXPERIMENTS[experiment].teacher_key
    [path] = expand(getattr(rules.finetune_teacher.output, key), model=model, task=task, seed=seed)
    return path


def td_teacher_input(key):
    """Input function: output ``key`` of the teacher of experiment ``wildcards.experiment``."""
    return lambda wildcards: td_teacher_path(wildcards.experiment, key)


def td_seed_outputs(pattern):
    """``pattern`` (with ``{seed}``) for every seed, its other wildcards left in place."""
    return expand(pattern, seed=TD_SEEDS, allow_missing=True)


def td_runs():
    """Every evaluation of every experiment, with the keys of the summary."""
    runs = []
    for name, experiment in TD_EXPERIMENTS.items():
        keys = {
            "experiment": name,
            "task": experiment.task,
            "teacher": experiment.teacher,
            "student": experiment.student,
        }
        teacher = td_teacher_path(name, "evaluation")
        runs.append({**keys, "transfer": "", "setting": "teacher", "path": teacher})
        untrained = expand(rules.untrained_students.output.evaluations, experiment=name)
        runs += [
            {**keys, "transfer": "", "setting": "untrained", "path": path} for path in untrained
        ]
        methods = {
            "distilled": experiment.transfer,
            "direct": experiment.direct_transfer(TD_TRANSFER),
        }
        for method, transfers in methods.items():
            for transfer in transfers:
                paths = expand(
                    rules.train_students.output.evaluations,
                    experiment=name,
                    transfer=transfer,
                    method=method,
                )
                runs += [
                    {**keys, "transfer": transfer, "setting": method, "path": path}
                    for path in paths
                ]
    return runs


def td_student_data(wildcards):
    """What a student trains on: the soft labels (distilled), the transfer set's own labels
    (direct) or nothing (untrained, a job without the method wildcard)."""
    method = wildcards.get("method")
    if method is None:
        return []
    pattern = (
        rules.soft_labels.output.soft_labels
        if method == "distilled"
        else rules.transfer_set.output[0]
    )
    [path] = expand(pattern, experiment=wildcards.experiment, transfer=wildcards.transfer)
    return path
