"""Fine-tune the teacher of task-specific distillation with the harness, save and evaluate it."""

from biocompact.runlog import job_logging
from biocompact.task_distillation.student import train_teacher

with job_logging(snakemake):
    train_teacher(
        snakemake.params.model_path,
        snakemake.params.task,
        int(snakemake.wildcards.seed),
        out_model=snakemake.output.model,
        out_metrics=snakemake.output.metrics,
        out_predictions=snakemake.output.predictions,
        out_evaluation=snakemake.output.evaluation,
        out_evaluation_predictions=snakemake.output.evaluation_predictions,
        threads=snakemake.threads,
        model_name=snakemake.wildcards.model,
        task_name=snakemake.wildcards.task,
    )
