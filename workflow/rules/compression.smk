# Compression stage: fine-tuned models in their deployment formats (PyTorch dynamic int8,
# ONNX run with ONNX Runtime) beside the saved fp32 model, each re-scored on the task's test
# set with the harness and timed on CPU. Its names (COMPRESSION) and input functions are in
# compression_common.smk; task_data and finetune_task are finetuning_common.smk's. The fp32
# reference, rule finetune_saved, is declared in finetuning.smk beside rule finetune.


rule compress:
    """One deployment format of a saved fine-tuned model: int8 or onnx."""
    input:
        model=saved_model,
    output:
        model=directory("results/compression/{model}/{task}/seed{seed}/{format}/model"),
    log:
        "results/logs/compression/compress/{model}/{task}/seed{seed}/{format}.log",
    benchmark:
        "results/benchmarks/compression/compress/{model}/{task}/seed{seed}/{format}.tsv"
    wildcard_constraints:
        format="|".join(COMPRESSION.formats) or "(?!)",
    priority: PRIORITY_CHAIN
    conda:
        "../../envs/torch.yaml"
    threads: 1
    resources:
        mem_mb=8000,
        runtime=60,
    params:
        format="{format}",
    script:
        "../../scripts/compress.py"


rule evaluate_compressed:
    """Re-score every format of one fine-tuned model on the task's test set with the harness,
    size its weights file, and time the formats together on CPU (the efficiency stage's rounds
    interleaved across them; every core, as the efficiency job)."""
    input:
        unpack(compressed_models),
        data=task_data,
    output:
        evaluations=expand(
            "results/compression/{{model}}/{{task}}/seed{{seed}}/{format}/evaluation.json",
            format=COMPRESSION.all_formats,
        ),
        predictions=expand(
            "results/compression/{{model}}/{{task}}/seed{{seed}}/{format}/predictions.tsv",
            format=COMPRESSION.all_formats,
        ),
    log:
        "results/logs/compression/evaluate_compressed/{model}/{task}/seed{seed}.log",
    benchmark:
        "results/benchmarks/compression/evaluate_compressed/{model}/{task}/seed{seed}.tsv"
    priority: PRIORITY_CHAIN
    conda:
        "../../envs/torch.yaml"
    threads: TIMING_THREADS
    resources:
        mem_mb=8000,
        runtime=60,
    params:
        formats=COMPRESSION.all_formats,
        task=finetune_task,
        model="{model}",
        task_name="{task}",
        seed="{seed}",
        batch_sizes=config["efficiency"]["batch_sizes"],
        sequence_lengths=config["efficiency"]["sequence_lengths"],
        repeats=config["efficiency"]["repeats"],
    script:
        "../../scripts/evaluate_compressed.py"


rule compression_summary:
    """One row per (model, task, format): score, change against fp32, size, CPU latency and
    speed-up over fp32 with their spread."""
    input:
        evaluations=compression_evaluations(),
    output:
        summary="results/compression/summary.csv",
    log:
        "results/logs/compression/summary.log",
    benchmark:
        "results/benchmarks/compression/summary.tsv"
    conda:
        "../../envs/report.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    script:
        "../../scripts/compression_summary.py"


localrules:
    compression,


rule compression:
    """Target: every configured (model, task) in every format, and the summary."""
    input:
        rules.compression_summary.output if COMPRESSION.pairs else [],
