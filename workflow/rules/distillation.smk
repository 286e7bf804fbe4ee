# Distillation stage: task-agnostic distillation of a student from a pretrained teacher.


rule distill:
    """Distil one student from its teacher on the teacher's tokenised corpus."""
    input:
        teacher=lambda wc: model_dir(config["distillation"][wc.model]["teacher"]),
        corpus=lambda wc: f"results/pretraining_data/{model_vocabulary(wc.model)}",
    output:
        model=directory("results/distillation/{model}/model"),
        log="results/distillation/{model}/train_log.jsonl",
        eval="results/distillation/{model}/eval.json",
    params:
        checkpoint_dir="results/checkpoints/distillation/{model}",
        method=lambda wc: config["distillation"][wc.model]["method"],
        student_init=lambda wc: config["distillation"][wc.model]["student_init"],
        student_layers=lambda wc: config["distillation"][wc.model]["student_layers"],
        student_architecture=lambda wc: config["distillation"][wc.model].get("student_architecture"),
        temperature=lambda wc: config["distillation"][wc.model]["temperature"],
        alpha=lambda wc: config["distillation"][wc.model]["alpha"],
        training=lambda wc: training_settings(config["distillation"][wc.model]),
        masking=config["masking"],
        probes=config["probes"],
    log:
        "results/logs/distillation/distill/{model}.log",
    benchmark:
        "results/benchmarks/distillation/distill/{model}.tsv"
    threads: 2
    resources:
        mem_mb=16000,
        runtime=1440,
    conda:
        "../../envs/torch.yaml"
    script:
        "../../scripts/distill.py"


localrules:
    distillation,


rule distillation:
    """Target: every distilled student."""
    input:
        expand("results/distillation/{model}/eval.json", model=DISTILLED),
