# Fine-tuning stage: every model x task x seed, plus the constant floors of every task.
# Its names (SAVE_MODELS, SEED_MODEL, SAVED_TASKS...) and input functions are in
# finetuning_common.smk; the seed of the compressed models (COMPRESSION) in compression_common.smk.


localrules:
    finetuning,


rule finetune:
    """Fine-tune one model on one task with one seed (every fold of a cross-validated task, every
    grid point of its preset); score the best dev evaluation once on test."""
    input:
        model=model_of,
        data=task_data,
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
        **gpu_job_resources(config["finetuning"]),
    params:
        model_path=model_path_of,
        task=finetune_task,
    script:
        "../../scripts/finetune.py"


# finetuning.save_models (best, all): every seed's run also saves the model it chose on dev
# (kept with `all`; with `best` a temporary folder, deleted once the chosen one is published).
use rule finetune as finetune_kept with:
    output:
        model=(directory(SEED_MODEL) if SAVE_MODELS == "all" else temp(directory(SEED_MODEL))),
        metrics=rules.finetune.output.metrics,
        predictions=rules.finetune.output.predictions,
    wildcard_constraints:
        model="|".join(FINETUNE_MODELS) if SAVE_MODELS != "none" else "(?!)",
        task="|".join(SAVED_TASKS) or "(?!)",


# The compression stage's fp32 reference (compression.smk): rule finetune's run of each
# compressed (model, task) with the compression seed also saves the model it chose on dev, so
# that one run serves both stages. Declared here, as `use rule` needs its rule already defined.
use rule finetune as finetune_saved with:
    output:
        model=directory(SEED_MODEL),
        metrics=rules.finetune.output.metrics,
        predictions=rules.finetune.output.predictions,
    wildcard_constraints:
        model="|".join(COMPRESSION.models) or "(?!)",
        task="|".join(COMPRESSION.tasks) or "(?!)",
        seed=str(COMPRESSION.seed),
    priority: PRIORITY_CHAIN


ruleorder: finetune_saved > finetune_kept > finetune


rule publish_finetuned:
    """The fine-tuned model of one (model, task): the seed chosen on dev (finetuning.save_choice),
    its folder with the task's label names and a model card of every seed's test scores."""
    input:
        metrics=seed_metrics,
        models=seed_models,
        contamination=base_model_contamination,
    output:
        model=directory("results/finetuned/{model}/{task}/model"),
    log:
        "results/logs/finetuning/publish_finetuned/{model}/{task}.log",
    benchmark:
        "results/benchmarks/finetuning/publish_finetuned/{model}/{task}.tsv"
    conda:
        "../../envs/torch.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        choice=config["finetuning"]["save_choice"],
        task=finetune_task,
    script:
        "../../scripts/publish_finetuned.py"


localrules:
    finetuned_models,


rule finetuned_models:
    """Target: the published fine-tuned model of every (model, task) (finetuning.save_models)."""
    input:
        (
            expand(rules.publish_finetuned.output.model, model=FINETUNE_MODELS, task=SAVED_TASKS)
            if SAVE_MODELS != "none"
            else []
        ),


rule majority_baseline:
    """Score the constant floors of one task: the majority class (most frequent training label;
    NER: all O) and, where the primary metric is an F1 over positive classes, all-positive (in
    floors/all-positive/); each with its test predictions in the fine-tuning runs' form."""
    input:
        data=task_data,
    output:
        metrics="results/baselines/{task}/metrics.json",
        predictions="results/baselines/{task}/predictions.tsv",
        floors=directory("results/baselines/{task}/floors"),
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
        task=data_task,
    script:
        "../../scripts/majority_baseline.py"


rule finetuning:
    """Target: every fine-tuning run (models x tasks x seeds) and every task's baseline."""
    input:
        expand(rules.finetune.output.metrics, model=FINETUNE_MODELS, task=TASKS, seed=SEEDS),
        expand(rules.majority_baseline.output.metrics, task=TASKS),
        rules.finetuned_models.input,
