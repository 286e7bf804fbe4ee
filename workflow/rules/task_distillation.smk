# Task-specific distillation on transfer data: a teacher fine-tuned on a task, its soft
# labels on transfer sets (general, randomised, biomedical), students trained on them
# alone and evaluated on the task; the direct fine-tuning baseline (section 4.2).
# Its names (TD_*) and input functions (td_*) are in task_distillation_common.smk.


include: "task_distillation_common.smk"


wildcard_constraints:
    experiment="|".join(TD_EXPERIMENTS) or "(?!)",
    transfer="|".join(TD_TRANSFER) or "(?!)",
    method="distilled|direct",


rule transfer_set:
    """One transfer set as JSON Lines: read from a text or harness-format file, or randomised."""
    input:
        lambda wc: (
            TD_TRANSFER[wc.transfer].randomised.source
            if TD_TRANSFER[wc.transfer].randomised
            else TD_TRANSFER[wc.transfer].path
        ),
    output:
        "results/task_distillation/transfer/{transfer}.jsonl",
    log:
        "results/logs/task_distillation/transfer_set/{transfer}.log",
    benchmark:
        "results/benchmarks/task_distillation/transfer_set/{transfer}.tsv"
    conda:
        "../../envs/torch.yaml"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        settings=lambda wc: config["task_distillation"]["transfer_sets"][wc.transfer],
    script:
        "../../scripts/task_distillation_transfer.py"


rule finetune_teacher:
    """Stage 1: fine-tune the teacher on its task with the harness, save it, evaluate it."""
    input:
        model=lambda wc: model_input(wc.model),
        data=lambda wc: task_files(task_data_config(wc.task)),
    output:
        model=directory("results/task_distillation/teachers/{model}/{task}/seed{seed}/model"),
        metrics="results/task_distillation/teachers/{model}/{task}/seed{seed}/metrics.json",
        predictions="results/task_distillation/teachers/{model}/{task}/seed{seed}/predictions.tsv",
        evaluation="results/task_distillation/teachers/{model}/{task}/seed{seed}/evaluation.json",
        evaluation_predictions="results/task_distillation/teachers/{model}/{task}/seed{seed}/evaluation.tsv",
    log:
        "results/logs/task_distillation/finetune_teacher/{model}/{task}/seed{seed}.log",
    benchmark:
        "results/benchmarks/task_distillation/finetune_teacher/{model}/{task}/seed{seed}.tsv"
    priority: PRIORITY_CHAIN
    conda:
        "../../envs/torch.yaml"
    threads: 1
    resources:
        **gpu_job_resources(lambda wc: config["task_distillation"]),
    params:
        model_path=lambda wc: model_dir(wc.model),
        task=lambda wc: {**task_data_config(wc.task), "hyperparameters": td_teacher_training(wc)},
    script:
        "../../scripts/task_distillation_teacher.py"


rule soft_labels:
    """Stage 2: the teacher's probabilities at the experiment's temperature on one transfer set."""
    input:
        teacher=td_teacher_input("model"),
        transfer=rules.transfer_set.output[0],
        data=td_task_files,
    output:
        soft_labels="results/task_distillation/experiments/{experiment}/{transfer}/soft_labels.jsonl",
        meta="results/task_distillation/experiments/{experiment}/{transfer}/soft_labels.json",
    log:
        "results/logs/task_distillation/soft_labels/{experiment}/{transfer}.log",
    benchmark:
        "results/benchmarks/task_distillation/soft_labels/{experiment}/{transfer}.tsv"
    priority: PRIORITY_CHAIN
    conda:
        "../../envs/torch.yaml"
    threads: 1
    resources:
        **gpu_job_resources(lambda wc: config["task_distillation"]),
    params:
        task=lambda wc: td_task(wc.experiment, "teacher_training"),
        temperature=lambda wc: TD_EXPERIMENTS[wc.experiment].temperature,
    script:
        "../../scripts/task_distillation_soft_labels.py"


rule train_students:
    """Stage 3: the student trained on one transfer set, on the teacher's soft labels only
    (distilled) or on the set's own labels (direct), once per seed; evaluated on the task."""
    input:
        student=lambda wc: model_input(TD_EXPERIMENTS[wc.experiment].student),
        teacher=td_teacher_input("model"),
        teacher_predictions=td_teacher_input("evaluation_predictions"),
        data=td_student_data,
        task_data=td_task_files,
    output:
        evaluations=td_seed_outputs(
            "results/task_distillation/experiments/{experiment}/{transfer}/{method}/seed{seed}/evaluation.json"
        ),
        predictions=td_seed_outputs(
            "results/task_distillation/experiments/{experiment}/{transfer}/{method}/seed{seed}/evaluation.tsv"
        ),
    log:
        "results/logs/task_distillation/train_students/{experiment}/{transfer}/{method}.log",
    benchmark:
        "results/benchmarks/task_distillation/train_students/{experiment}/{transfer}/{method}.tsv"
    priority: PRIORITY_CHAIN
    conda:
        "../../envs/torch.yaml"
    threads: 1
    resources:
        **gpu_job_resources(lambda wc: config["task_distillation"]),
    params:
        student=lambda wc: TD_EXPERIMENTS[wc.experiment].student,
        student_path=lambda wc: model_dir(TD_EXPERIMENTS[wc.experiment].student),
        task=lambda wc: td_task(wc.experiment, "student_training"),
        method=lambda wc: wc.get("method", "untrained"),
        temperature=lambda wc: (
            TD_EXPERIMENTS[wc.experiment].temperature if wc.get("method") == "distilled" else None
        ),
        seeds=TD_SEEDS,
    script:
        "../../scripts/task_distillation_students.py"


use rule train_students as untrained_students with:
    # The student without transfer: its initialisation with a fresh head per seed, evaluated.
    output:
        evaluations=td_seed_outputs(
            "results/task_distillation/experiments/{experiment}/untrained/seed{seed}/evaluation.json"
        ),
        predictions=td_seed_outputs(
            "results/task_distillation/experiments/{experiment}/untrained/seed{seed}/evaluation.tsv"
        ),
    log:
        "results/logs/task_distillation/untrained_students/{experiment}.log",
    benchmark:
        "results/benchmarks/task_distillation/untrained_students/{experiment}.tsv"


rule task_distillation_summary:
    """Medians over seeds of every evaluation: teacher, students per transfer set and method."""
    input:
        [run["path"] for run in td_runs()],
    output:
        "results/task_distillation/summary.csv",
    log:
        "results/logs/task_distillation/summary.log",
    benchmark:
        "results/benchmarks/task_distillation/summary.tsv"
    conda:
        "../../envs/report.yaml"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        runs=lambda wildcards: td_runs(),  # a function: no wildcard expansion of the paths
    script:
        "../../scripts/task_distillation_summary.py"


localrules:
    task_distillation,


rule task_distillation:
    """Target: every task-specific distillation experiment and its summary."""
    input:
        rules.task_distillation_summary.output if TD_EXPERIMENTS else [],
