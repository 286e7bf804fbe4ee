# Task-specific distillation on transfer data: a teacher fine-tuned on a task, its soft
# labels on transfer sets (general, randomised, biomedical), students trained on them
# alone and evaluated on the task; the direct fine-tuning baseline (section 4.2).
# Its names (TD_*) and input functions (td_*) are in task_distillation_common.smk.


wildcard_constraints:
    experiment="|".join(TD_EXPERIMENTS) or "(?!)",
    transfer="|".join(TD_TRANSFER) or "(?!)",
    method="distilled|direct",


rule transfer_set:
    """One transfer set as JSON Lines: read from a text or harness-format file, or randomised;
    examples that overlap a test set dropped (decontamination.transfer_sets) and counted."""
    input:
        td_transfer_source,
        unpack(td_transfer_guard),
    output:
        transfer="results/task_distillation/transfer/{transfer}.jsonl",
        record="results/task_distillation/transfer/{transfer}.json",
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
        name="{transfer}",
        settings=td_transfer_entry,
    script:
        "../../scripts/transfer_set.py"


rule finetune_teacher:
    """Stage 1: fine-tune the teacher on its task with the harness, save it, evaluate it
    (data-parallel on every GPU of its resources)."""
    input:
        model=model_of,
        data=task_data,
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
        **gpu_job_resources(config["task_distillation"]),
    params:
        model_path=model_path_of,
        task=td_teacher_task,
        # outside the outputs: a job killed and started again resumes from there
        checkpoint_dir="results/checkpoints/task_distillation/teachers/{model}/{task}/seed{seed}",
    script:
        "../../scripts/finetune_teacher.py"


rule soft_labels:
    """Stage 2: the teacher's probabilities at the experiment's temperature on one transfer set
    (inference alone: on one GPU)."""
    input:
        teacher=td_teacher_input("model"),
        transfer=rules.transfer_set.output.transfer,
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
        **gpu_job_resources(one_gpu(config["task_distillation"])),
    params:
        task=td_task("teacher"),
        temperature=td_experiment_temperature,
    script:
        "../../scripts/soft_labels.py"


rule train_students:
    """Stage 3: the student trained on one transfer set, on the teacher's soft labels only
    (distilled) or on the set's own labels (direct), once per seed; evaluated on the task
    (data-parallel on every GPU of its resources)."""
    input:
        student=td_student_input,
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
        **gpu_job_resources(config["task_distillation"]),
    params:
        student=td_student,
        student_path=td_student_path,
        task=td_task("student"),
        method=td_student_method,
        temperature=td_student_temperature,
        seeds=TD_SEEDS,
        checkpoint_dir=td_student_checkpoints,
    script:
        "../../scripts/train_students.py"


use rule train_students as untrained_students with:
    # The student without transfer: its initialisation with a fresh head per seed, evaluated
    # (inference alone: on one GPU).
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
    resources:
        **gpu_job_resources(one_gpu(config["task_distillation"])),


rule task_distillation_summary:
    """Medians over seeds of every evaluation: teacher, students per transfer set and method."""
    input:
        [run["path"] for run in td_runs()],
    output:
        summary="results/task_distillation/summary.csv",
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
        runs=td_summary_runs,
    script:
        "../../scripts/task_distillation_summary.py"


localrules:
    task_distillation,


rule task_distillation:
    """Target: every task-specific distillation experiment and its summary."""
    input:
        rules.task_distillation_summary.output.summary if TD_EXPERIMENTS else [],
