# Input functions of the report stage (report.smk, which includes this file).


def finetune_metrics_pattern(wildcards):
    """The path pattern of a fine-tuning run's metrics, its wildcards unfilled (a params
    function, so that Snakemake does not fill them with the job's)."""
    return str(rules.finetune.output.metrics)


def baseline_metrics_pattern(wildcards):
    """The path pattern of a task's majority-baseline metrics, its wildcards unfilled."""
    return str(rules.majority_baseline.output.metrics)
