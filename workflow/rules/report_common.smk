# Input functions of the report stage (report.smk, which includes this file).


def finetune_metrics_pattern(wildcards):
    """The path pattern of a fine-tuning run's metrics, its wildcards unfilled (a params
    function, so that Snakemake does not fill them with the job's)."""
    return str(rules.finetune.output.metrics)


def baseline_metrics_pattern(wildcards):
    """The path pattern of a task's majority-baseline metrics, its wildcards unfilled."""
    return str(rules.majority_baseline.output.metrics)


def finetune_predictions_pattern(wildcards):
    """The path pattern of a fine-tuning run's predictions, its wildcards unfilled."""
    return str(rules.finetune.output.predictions)


def baseline_predictions_pattern(wildcards):
    """The path pattern of a task's majority-baseline predictions, its wildcards unfilled."""
    return str(rules.majority_baseline.output.predictions)


def comparison_tasks(wildcards):
    """Params: every task's entry without its hyperparameters (family, metric, classes)."""
    return {task: task_data_config(task) for task in TASKS}
