# Distillation stage: task-agnostic distillation of a student from a pretrained teacher.

# A student whose student_init names a model of this config (STUDENT_FROM_MODEL, common.smk)
# has that model's folder as an input, built first.


rule distill:
    """Distil one student from its teacher on the teacher's tokenised corpus."""
    input:
        teacher=lambda wc: model_input(config["distillation"][wc.model]["teacher"]),
        corpus=lambda wc: f"results/pretraining_data/{model_vocabulary(wc.model)}",
        student=lambda wc: (
            model_input(STUDENT_FROM_MODEL[wc.model]) if wc.model in STUDENT_FROM_MODEL else []
        ),
    output:
        model=directory("results/distillation/{model}/model"),
        log="results/distillation/{model}/train_log.jsonl",
        eval="results/distillation/{model}/eval.json",
    log:
        "results/logs/distillation/distill/{model}.log",
    benchmark:
        "results/benchmarks/distillation/distill/{model}.tsv"
    priority: model_priority
    # No retries here: the Slurm profile resubmits it (preemptible-rules), a local run does not.
    conda:
        "../../envs/torch.yaml"
    threads: gpu_job_threads(lambda wc: config["distillation"][wc.model])
    resources:
        **gpu_job_resources(lambda wc: config["distillation"][wc.model]),
    params:
        teacher=lambda wc: model_dir(config["distillation"][wc.model]["teacher"]),
        checkpoint_dir="results/checkpoints/distillation/{model}",
        settings=lambda wc: distillation_entry(wc.model),
        masking=config["masking"],
        probes=config["probes"],
    script:
        "../../scripts/distill.py"


localrules:
    distillation,


rule distillation:
    """Target: every distilled student."""
    input:
        expand(rules.distill.output.eval, model=DISTILLED),
