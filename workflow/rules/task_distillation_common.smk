# Task-specific distillation: names and input functions of task_distillation.smk; included
# by common.smk. Uses ALL_MODELS, model_input and model_dir of common.smk,
# GUARD_TRANSFER_SETS of corpus_common.smk and FINETUNING_TASKS and task_files of
# finetuning_common.smk.

from biocompact.entries import parse_entry
from biocompact.workflow.configured_inputs import require_files
from biocompact.task_distillation.settings import ExperimentSettings, TransferSetSettings

# Every entry parsed and checked here, before any job runs. Jobs get plain values (the
# entry, or the parts of it they read): Snakemake's params trigger compares only those.
# (the name, an entry's key, passed in with it)
TD_TRANSFER = {
    name: parse_entry(
        TransferSetSettings, {**entry, "name": name}, f"task_distillation.transfer_sets.{name}"
    )
    for name, entry in config["task_distillation"]["transfer_sets"].items()
}
TD_EXPERIMENTS = {
    name: parse_entry(
        ExperimentSettings, {**entry, "name": name}, f"task_distillation.experiments.{name}"
    )
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
        task = FINETUNING_TASKS.get(experiment.task)
        if task is None:
            raise ValueError(f"{where}.task {experiment.task!r} is not in finetuning.tasks")
        if task.family not in TD_FAMILIES or task.format == "hoc_tsv":
            raise ValueError(
                f"{where}: task {experiment.task!r} is not single-label classification or yes/no"
            )
        if task.folds:
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
        for role in ("teacher", "student"):  # the hyperparameters checked
            experiment.task_entry(config, role)


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


def td_task(role):
    """Params: the task of experiment ``wildcards.experiment`` with the hyperparameters of
    its ``role`` (teacher or student)."""

    def task(wildcards):
        return TD_EXPERIMENTS[wildcards.experiment].task_entry(config, role)

    return task


def td_task_files(wildcards):
    """The data files of the task of experiment ``wildcards.experiment``."""
    return task_files(FINETUNING_TASKS[TD_EXPERIMENTS[wildcards.experiment].task])


def td_teacher_task(wildcards):
    """Params: the task of the teacher (model, task, seed) with the teacher_training of the
    experiments it serves."""
    key = (wildcards.model, wildcards.task, int(wildcards.seed))
    for experiment in TD_EXPERIMENTS.values():
        if experiment.teacher_key == key:
            return experiment.task_entry(config, "teacher")
    raise ValueError(f"no task_distillation experiment has the teacher {wildcards}")


def td_experiment_temperature(wildcards):
    """Params: the temperature of experiment ``wildcards.experiment``."""
    return TD_EXPERIMENTS[wildcards.experiment].temperature


def td_student(wildcards):
    """Params: the student model of experiment ``wildcards.experiment``."""
    return TD_EXPERIMENTS[wildcards.experiment].student


def td_student_input(wildcards):
    """Input: what the DAG builds before the experiment's student is used."""
    return model_input(td_student(wildcards))


def td_student_path(wildcards):
    """Params: the folder the experiment's student is loaded from."""
    return model_dir(td_student(wildcards))


def td_student_temperature(wildcards):
    """Params: the temperature a distilled student learns at (None for the other methods)."""
    if wildcards.get("method") == "distilled":
        return td_experiment_temperature(wildcards)
    return None


def td_student_checkpoints(wildcards):
    """Params: the folder of the students' checkpoints, outside the outputs (a job killed
    and started again resumes from there; untrained students train nothing)."""
    if "method" not in wildcards.keys():
        return f"results/checkpoints/task_distillation/students/{wildcards.experiment}/untrained"
    return (
        "results/checkpoints/task_distillation/students/"
        f"{wildcards.experiment}/{wildcards.transfer}/{wildcards.method}"
    )


def td_student_method(wildcards):
    """Params: the student's method; ``untrained`` for a job without the method wildcard."""
    return wildcards.get("method", "untrained")


def td_transfer_source(wildcards):
    """Input: the file transfer set ``wildcards.transfer`` is read or randomised from."""
    settings = TD_TRANSFER[wildcards.transfer]
    return settings.randomised.source if settings.randomised else settings.path


def td_transfer_guard(wildcards):
    """Input: the evaluation text's n-gram index, named ``index``, that the examples of a
    transfer set are checked against (decontamination.transfer_sets); none when it is off."""
    return {"index": rules.corpus_evaluation_text.output.index} if GUARD_TRANSFER_SETS else {}


def td_transfer_entry(wildcards):
    """Params: the config entry of transfer set ``wildcards.transfer``."""
    return config["task_distillation"]["transfer_sets"][wildcards.transfer]


def td_teacher_path(experiment, key):
    """Output ``key`` of the experiment's teacher (shared by experiments with the same one)."""
    model, task, seed = TD_EXPERIMENTS[experiment].teacher_key
    [path] = expand(getattr(rules.finetune_teacher.output, key), model=model, task=task, seed=seed)
    return path


def td_teacher_input(key):
    """Input function: output ``key`` of the teacher of experiment ``wildcards.experiment``."""

    def teacher_output(wildcards):
        return td_teacher_path(wildcards.experiment, key)

    return teacher_output


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


def td_summary_runs(wildcards):
    """Params: ``td_runs()`` (a function: no wildcard expansion of their paths)."""
    return td_runs()


def td_student_data(wildcards):
    """What a student trains on: the soft labels (distilled), the transfer set's own labels
    (direct) or nothing (untrained, a job without the method wildcard)."""
    method = wildcards.get("method")
    if method is None:
        return []
    pattern = (
        rules.soft_labels.output.soft_labels
        if method == "distilled"
        else rules.transfer_set.output.transfer
    )
    [path] = expand(pattern, experiment=wildcards.experiment, transfer=wildcards.transfer)
    return path
