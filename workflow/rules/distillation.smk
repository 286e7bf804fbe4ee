# Distillation stage: task-agnostic distillation of a student from a pretrained teacher.
# Its input functions are in distillation_common.smk; CONTAMINATION is corpus_common.smk's.


# A student whose student_init names a model of this config (STUDENT_FROM_MODEL, common.smk)
# has that model's folder as an input, built first.


rule distill:
    """Distil one student from its teacher on the teacher's tokenised corpus."""
    input:
        teacher=teacher_input,
        corpus=model_corpus,
        contamination=CONTAMINATION,  # the model card states whether the corpus was decontaminated
        student=student_init_input,
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
    threads: gpu_job_threads(distillation_entry)
    resources:
        **gpu_job_resources(distillation_entry),
    params:
        teacher=teacher_folder,
        checkpoint_dir="results/checkpoints/distillation/{model}",
        settings=distillation_settings,
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
