# Names and input functions of the report stage (report.smk); included by common.smk. The
# report reads every other stage's results: input functions name them by reference to the
# rules that write them (rules.X, looked up once every rule file is read).

# Distilled students fine-tuned beside their teacher: the retention view compares them.
STUDENT_TEACHERS = {
    name: config["distillation"][name]["teacher"]
    for name in DISTILLED
    if name in FINETUNE_MODELS and config["distillation"][name]["teacher"] in FINETUNE_MODELS
}

# The transfer sets of the task-distillation experiments: the report counts what each dropped.
REPORTED_TRANSFER_SETS = list(
    dict.fromkeys(name for experiment in TD_EXPERIMENTS.values() for name in experiment.transfer)
)


def finetuned_metrics(wildcards):
    """Input: every seed's metrics of every fine-tuned model and task."""
    return expand(rules.finetune.output.metrics, model=FINETUNE_MODELS, task=TASKS, seed=SEEDS)


def finetuned_predictions(wildcards):
    """Input: every seed's test predictions of every fine-tuned model and task."""
    return expand(rules.finetune.output.predictions, model=FINETUNE_MODELS, task=TASKS, seed=SEEDS)


def baseline_metrics(wildcards):
    """Input: every task's majority-baseline metrics."""
    return expand(rules.majority_baseline.output.metrics, task=TASKS)


def baseline_predictions(wildcards):
    """Input: every task's majority-baseline test predictions."""
    return expand(rules.majority_baseline.output.predictions, task=TASKS)


def baseline_floors(wildcards):
    """Input: every task's folder of its other constant floors (all-positive, where it applies)."""
    return expand(rules.majority_baseline.output.floors, task=TASKS)


def finetuned_model_inputs(wildcards):
    """Input: what the DAG builds before every fine-tuned model can be loaded."""
    return [path for model in FINETUNE_MODELS for path in model_input(model)]


def finetuned_model_paths(wildcards):
    """Params: model -> the folder (or hub name) it is loaded from, for every fine-tuned model."""
    return {model: model_dir(model) for model in FINETUNE_MODELS}


def language_model_logs(wildcards):
    """Input: the training log of every pretrained and distilled model."""
    return expand(rules.pretrain.output.log, model=PRETRAINED) + expand(
        rules.distill.output.log, model=DISTILLED
    )


def language_model_evals(wildcards):
    """Input: the held-out evaluation of every pretrained and distilled model."""
    return expand(rules.pretrain.output.eval, model=PRETRAINED) + expand(
        rules.distill.output.eval, model=DISTILLED
    )


def corpus_statistics(wildcards):
    """Input: the corpus statistics, when the corpus has sentence shards."""
    return rules.corpus_stats.output.stats if SENTENCE_SHARDS else []


def vocabulary_statistics(wildcards):
    """Input: every vocabulary's statistics."""
    return expand(rules.train_vocabulary.output.stats, vocab=VOCABS)


def task_distillation_results(wildcards):
    """Input: the task-specific distillation summary, when the config has experiments."""
    return rules.task_distillation_summary.output.summary if TD_EXPERIMENTS else []


def compression_results(wildcards):
    """Input: the compression summary, when the config compresses a (model, task)."""
    return rules.compression_summary.output.summary if COMPRESSION.pairs else []


def transfer_records(wildcards):
    """Input: the record of every transfer set of the task-distillation experiments."""
    return expand(rules.transfer_set.output.record, transfer=REPORTED_TRANSFER_SETS)


def finetune_metrics_pattern(wildcards):
    """The path pattern of a fine-tuning run's metrics, its wildcards unfilled (a params
    function, so that Snakemake does not fill them with the job's)."""
    return str(rules.finetune.output.metrics)


def baseline_metrics_pattern(wildcards):
    """The path pattern of a task's majority-baseline metrics, its wildcards unfilled."""
    return str(rules.majority_baseline.output.metrics)


def baseline_floors_pattern(wildcards):
    """The path pattern of a task's folder of other constant floors, its wildcards unfilled."""
    return str(rules.majority_baseline.output.floors)


def finetune_predictions_pattern(wildcards):
    """The path pattern of a fine-tuning run's predictions, its wildcards unfilled."""
    return str(rules.finetune.output.predictions)


def baseline_predictions_pattern(wildcards):
    """The path pattern of a task's majority-baseline predictions, its wildcards unfilled."""
    return str(rules.majority_baseline.output.predictions)


def comparison_tasks(wildcards):
    """Params: every task's entry without its hyperparameters (family, metric, classes)."""
    return {task: task_data_config(task) for task in TASKS}
