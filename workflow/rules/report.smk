# Aggregation over seeds, efficiency benchmark and the HTML report.
# Uses FINETUNE_MODELS, TASKS, SEEDS, PRETRAINED, DISTILLED, VOCABS, model_dir and
# model_input from common.smk, TD_EXPERIMENTS from task_distillation.smk, COMPRESSION from
# compression.smk; the paths of other stages' results by reference to the rules that write them.


include: "report_common.smk"


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


rule aggregate:
    """Median over seeds per (model, task, metric), missing runs shown as missing; family and
    overall averages by the method of report.average."""
    input:
        metrics=expand(rules.finetune.output.metrics, model=FINETUNE_MODELS, task=TASKS, seed=SEEDS),
        baselines=expand(rules.majority_baseline.output.metrics, task=TASKS),
    output:
        scores=report(
            "results/aggregate/scores.csv", caption="../report/scores.rst", category="Results"
        ),
        summary=report(
            "results/aggregate/summary.csv", caption="../report/summary.rst", category="Results"
        ),
        averages=report(
            "results/aggregate/averages.csv", caption="../report/averages.rst", category="Results"
        ),
        markdown=report(
            "results/aggregate/summary.md", caption="../report/summary_md.rst", category="Results"
        ),
        retention="results/aggregate/retention.csv",
    log:
        "results/logs/report/aggregate.log",
    benchmark:
        "results/benchmarks/report/aggregate.tsv"
    conda:
        "../../envs/report.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        models=FINETUNE_MODELS,
        tasks=TASKS,
        seeds=SEEDS,
        metrics_pattern=finetune_metrics_pattern,
        baseline_pattern=baseline_metrics_pattern,
        average=config["report"]["average"],
        blurb_types=blurb_task_types(),
        teachers=STUDENT_TEACHERS,
    script:
        "../../scripts/aggregate.py"


rule comparisons:
    """Every comparison of the report with its 95% interval: a paired bootstrap over each
    task's test units (every run's predictions), Almost Stochastic Order over seeds, Holm's
    correction over the tasks; every model's score and average with its interval."""
    input:
        metrics=rules.aggregate.input.metrics,
        predictions=expand(
            rules.finetune.output.predictions, model=FINETUNE_MODELS, task=TASKS, seed=SEEDS
        ),
        baselines=rules.aggregate.input.baselines,
        baseline_predictions=expand(rules.majority_baseline.output.predictions, task=TASKS),
    output:
        comparisons=report(
            "results/comparisons/comparisons.csv",
            caption="../report/comparisons.rst",
            category="Results",
        ),
        intervals="results/comparisons/intervals.csv",
    log:
        "results/logs/report/comparisons.log",
    benchmark:
        "results/benchmarks/report/comparisons.tsv"
    conda:
        "../../envs/report.yaml"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
    params:
        models=FINETUNE_MODELS,
        tasks=comparison_tasks,
        seeds=SEEDS,
        metrics_pattern=finetune_metrics_pattern,
        predictions_pattern=finetune_predictions_pattern,
        baseline_metrics_pattern=baseline_metrics_pattern,
        baseline_predictions_pattern=baseline_predictions_pattern,
        teachers=STUDENT_TEACHERS,
        average=config["report"]["average"],
        blurb_types=blurb_task_types(),
        resamples=config["report"]["resamples"],
        seed=config["report"]["bootstrap_seed"],
    script:
        "../../scripts/comparisons.py"


rule efficiency:
    """Parameters, FLOPs per token, inference throughput, latency and peak memory of every
    fine-tuned model, measured together: repeats interleaved across the models."""
    input:
        [model_input(model) for model in FINETUNE_MODELS],
    output:
        results=[
            report(
                f"results/efficiency/{model}.json",
                caption="../report/efficiency.rst",
                category="Efficiency",
            )
            for model in FINETUNE_MODELS
        ],
    log:
        "results/logs/efficiency/efficiency.log",
    benchmark:
        "results/benchmarks/efficiency/efficiency.tsv"
    priority: PRIORITY_CHAIN
    conda:
        "../../envs/torch.yaml"
    threads: TIMING_THREADS
    resources:
        mem_mb=8000,
        runtime=60,
    params:
        models=FINETUNE_MODELS,
        model_paths={model: model_dir(model) for model in FINETUNE_MODELS},
        batch_sizes=config["efficiency"]["batch_sizes"],
        sequence_lengths=config["efficiency"]["sequence_lengths"],
        repeats=config["efficiency"]["repeats"],
    script:
        "../../scripts/efficiency.py"


rule report:
    """The self-contained HTML report from every result file."""
    input:
        template=workflow.source_path("../report/report.html.j2"),
        published=workflow.source_path("../report/published_results.csv"),
        summary=rules.aggregate.output.summary,
        scores=rules.aggregate.output.scores,
        averages=rules.aggregate.output.averages,
        efficiency=rules.efficiency.output.results,
        train_logs=expand(rules.pretrain.output.log, model=PRETRAINED)
        + expand(rules.distill.output.log, model=DISTILLED),
        evals=expand(rules.pretrain.output.eval, model=PRETRAINED)
        + expand(rules.distill.output.eval, model=DISTILLED),
        corpus=rules.corpus_stats.output[0] if SENTENCE_SHARDS else [],
        vocab=expand(rules.train_vocabulary.output.stats, vocab=VOCABS),
        datasets=dataset_counts(),
        task_distillation=rules.task_distillation_summary.output.summary if TD_EXPERIMENTS else [],
        retention=rules.aggregate.output.retention,
        comparisons=rules.comparisons.output.comparisons,
        intervals=rules.comparisons.output.intervals,
        compression=rules.compression_summary.output[0] if COMPRESSION.pairs else [],
        contamination=CONTAMINATION,
        transfer_records=expand(rules.transfer_set.output.record, transfer=REPORTED_TRANSFER_SETS),
    output:
        html=report("results/report/report.html", caption="../report/report.rst", category="Report"),
    log:
        "results/logs/report/report.log",
    benchmark:
        "results/benchmarks/report/report.tsv"
    conda:
        "../../envs/report.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        benchmarks="results/benchmarks",
        config=config,
        title=config["report"]["title"],
        source_dir=workflow.basedir,
    script:
        "../../scripts/report.py"
