# Pretraining stage: masked language modelling from scratch or from a checkpoint.
# Checkpoints live in results/checkpoints/, outside the rule's outputs, so a job killed
# by the cluster and resubmitted resumes where it stopped.


rule pretrain:
    """Pretrain one model with (whole-word) masked language modelling."""
    input:
        corpus=lambda wc: f"results/pretraining_data/{model_vocabulary(wc.model)}",
        tokenizer=lambda wc: f"results/vocab/{model_vocabulary(wc.model)}/tokenizer",
    output:
        model=directory("results/pretraining/{model}/model"),
        log="results/pretraining/{model}/train_log.jsonl",
        eval="results/pretraining/{model}/eval.json",
    params:
        checkpoint_dir="results/checkpoints/pretraining/{model}",
        architecture=lambda wc: config["pretraining"][wc.model].get("architecture", {}),
        init=lambda wc: config["pretraining"][wc.model]["init"],
        training=lambda wc: training_settings(config["pretraining"][wc.model]),
        masking=config["masking"],
        max_seq_length=config["pretraining_data"]["max_seq_length"],
        probes=config["probes"],
    log:
        "results/logs/pretraining/pretrain/{model}.log",
    benchmark:
        "results/benchmarks/pretraining/pretrain/{model}.tsv"
    threads: 2
    resources:
        mem_mb=16000,
        runtime=1440,
    conda:
        "../../envs/torch.yaml"
    script:
        "../../scripts/pretrain.py"


localrules:
    pretraining,


rule pretraining:
    """Target: every pretrained model."""
    input:
        expand("results/pretraining/{model}/eval.json", model=PRETRAINED),
