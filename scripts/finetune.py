"""Fine-tune one model on one task with one seed; evaluate the best dev epoch on test."""
from biocompact.finetuning.train import finetune
from biocompact.runlog import job_logging

with job_logging(snakemake) as log:  # noqa: F821  (snakemake is injected)
    finetune(
        snakemake.params.model_path,  # noqa: F821
        snakemake.params.task,  # noqa: F821
        int(snakemake.wildcards.seed),  # noqa: F821
        snakemake.output.metrics,  # noqa: F821
        snakemake.output.predictions,  # noqa: F821
        threads=snakemake.threads,  # noqa: F821
        model_name=snakemake.wildcards.model,  # noqa: F821
        task_name=snakemake.wildcards.task,  # noqa: F821
    )
