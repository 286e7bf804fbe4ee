# Pretraining stage: masked language modelling from scratch or from a checkpoint.
# Checkpoints live in results/checkpoints/, outside the rule's outputs, so a job killed
# by the cluster and resubmitted resumes where it stopped.
# Several GPUs (a model's resources.gpus > 1): the script checks that the job sees them
# and starts `torchrun --standalone --nproc_per_node=N -m biocompact.pretraining.run`,
# one data-parallel process per GPU on the job's node; only rank 0 writes.
# Its input functions are in pretraining_common.smk; CONTAMINATION is corpus_common.smk's.


rule pretrain:
    """Pretrain one model with its objective (MLM, BERT's MLM + NSP, ELECTRA, ALBERT's MLM + SOP)."""
    input:
        corpus=model_corpus,
        corpus_record=model_corpus_record,  # its sequence length
        contamination=CONTAMINATION,  # the model card states whether the corpus was decontaminated
        tokenizer=model_tokenizer,
    output:
        model=directory("results/pretraining/{model}/model"),
        log="results/pretraining/{model}/train_log.jsonl",
        eval="results/pretraining/{model}/eval.json",
    log:
        "results/logs/pretraining/pretrain/{model}.log",
    benchmark:
        "results/benchmarks/pretraining/pretrain/{model}.tsv"
    priority: model_priority
    # No retries here: the Slurm profile resubmits it (preemptible-rules), a local run does not.
    conda:
        "../../envs/torch.yaml"
    threads: gpu_job_threads(pretraining_entry)
    resources:
        **gpu_job_resources(pretraining_entry),
    params:
        checkpoint_dir="results/checkpoints/pretraining/{model}",
        settings=pretraining_settings,
        masking=config["masking"],
        probes=config["probes"],
    script:
        "../../scripts/pretrain.py"


localrules:
    pretraining,


rule pretraining:
    """Target: every pretrained model."""
    input:
        expand(rules.pretrain.output.eval, model=PRETRAINED),
