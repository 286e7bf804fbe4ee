"""Fine-tune the teacher of task-specific distillation with the harness, save and evaluate it."""
from biocompact.runlog import job_logging
from biocompact.task_distillation.student import train_teacher

with job_logging(snakemake):  # noqa: F821  (snakemake is injected)
    train_teacher(
        snakemake.params.model_path,  # noqa: F821
        snakemake.params.task,  # noqa: F821
        int(snakemake.wildcards.seed),  # noqa: F821
        out_model=snakemake.output.model,  # noqa: F821
        out_metrics=snakemake.output.metrics,  # noqa: F821
        out_predictions=snakemake.output.predictions,  # noqa: F821
        out_evaluation=snakemake.output.evaluation,  # noqa: F821
        out_evaluation_predictions=snakemake.output.evaluation_predictions,  # noqa: F821
        threads=snakemake.threads,  # noqa: F821
        model_name=snakemake.wildcards.model,  # noqa: F821
        task_name=snakemake.wildcards.task,  # noqa: F821
    )
