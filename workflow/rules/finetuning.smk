# Fine-tuning stage: every model x task x seed, plus a majority-class baseline per task.


from biocompact.finetuning.task_files import task_files


localrules:
    finetuning,


rule finetune:
    """Fine-tune one model on one task with one seed (every fold of a cross-validated task, every
    grid point of its preset); score the best dev evaluation once on test."""
    input:
        model=lambda wc: model_input(wc.model),
        data=lambda wc: task_files(task_config(wc.task)),
    output:
        metrics="results/finetuning/{model}/{task}/seed{seed}/metrics.json",
        predictions="results/finetuning/{model}/{task}/seed{seed}/predictions.tsv",
    log:
        "results/logs/finetuning/finetune/{model}/{task}/seed{seed}.log",
    benchmark:
        "results/benchmarks/finetuning/finetune/{model}/{task}/seed{seed}.tsv"
    conda:
        "../../envs/torch.yaml"
    threads: 1
    resources:
        **gpu_job_resources(lambda wc: config["finetuning"]),
    params:
        model_path=lambda wc: model_dir(wc.model),
        task=lambda wc: finetune_config(wc.model, wc.task),
    script:
        "../../scripts/finetune.py"


rule majority_baseline:
    """Score the majority-class baseline (most frequent training label; NER: all O) of one task."""
    input:
        data=lambda wc: task_files(task_config(wc.task)),
    output:
        metrics="results/baselines/{task}/metrics.json",
    log:
        "results/logs/finetuning/majority_baseline/{task}.log",
    benchmark:
        "results/benchmarks/finetuning/majority_baseline/{task}.tsv"
    conda:
        "../../envs/torch.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        task=lambda wc: task_data_config(wc.task),
    script:
        "../../scripts/majority_baseline.py"


rule finetuning:
    """Target: every fine-tuning run (models x tasks x seeds) and every task's baseline."""
    input:
        expand(rules.finetune.output.metrics, model=FINETUNE_MODELS, task=TASKS, seed=SEEDS),
        expand(rules.majority_baseline.output.metrics, task=TASKS),
