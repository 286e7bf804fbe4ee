"""Fine-tune one model on one task with one seed as rule finetune does, and save the model."""

from biocompact.finetuning.train import finetune
from biocompact.runlog import job_logging

with job_logging(snakemake):
    finetune(
        snakemake.params.model_path,
        snakemake.params.task,
        int(snakemake.wildcards.seed),
        snakemake.output.metrics,
        snakemake.output.predictions,
        threads=snakemake.threads,
        model_name=snakemake.wildcards.model,
        task_name=snakemake.wildcards.task,
        out_model=snakemake.output.model,
    )
