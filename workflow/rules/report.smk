# Aggregation over seeds, efficiency benchmark and the HTML report.
# Uses FINETUNE_MODELS, TASKS, SEEDS of common.smk, blurb_task_types and dataset_counts of
# datasets_common.smk, CONTAMINATION of corpus_common.smk; its names (STUDENT_TEACHERS) and
# the input functions naming the other stages' results (finetuned_metrics, transfer_records...)
# are in report_common.smk.


rule aggregate:
    """Median over seeds per (model, task, metric), missing runs shown as missing; family and
    overall averages by the method of report.average."""
    input:
        metrics=finetuned_metrics,
        baselines=baseline_metrics,
        floors=baseline_floors,
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
        floors_pattern=baseline_floors_pattern,
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
        metrics=finetuned_metrics,
        predictions=finetuned_predictions,
        baselines=baseline_metrics,
        baseline_predictions=baseline_predictions,
        floors=baseline_floors,
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
        floors_pattern=baseline_floors_pattern,
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
        finetuned_model_inputs,
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
        model_paths=finetuned_model_paths,
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
        train_logs=language_model_logs,
        evals=language_model_evals,
        corpus=corpus_statistics,
        vocab=vocabulary_statistics,
        datasets=dataset_counts(),
        task_distillation=task_distillation_results,
        retention=rules.aggregate.output.retention,
        comparisons=rules.comparisons.output.comparisons,
        intervals=rules.comparisons.output.intervals,
        compression=compression_results,
        contamination=CONTAMINATION,
        transfer_records=transfer_records,
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
