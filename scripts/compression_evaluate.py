"""Re-score one format of a fine-tuned model on its task's test set, time it on CPU, size it."""

from biocompact.compression.evaluation import evaluate_format
from biocompact.runlog import job_logging

with job_logging(snakemake):
    evaluate_format(
        snakemake.input.model,
        snakemake.wildcards.format,
        snakemake.params.task,
        int(snakemake.wildcards.seed),
        snakemake.output.evaluation,
        snakemake.output.predictions,
        batch_sizes=snakemake.params.batch_sizes,
        sequence_lengths=snakemake.params.sequence_lengths,
        repeats=snakemake.params.repeats,
        threads=snakemake.threads,
        model_name=snakemake.wildcards.model,
        task_name=snakemake.wildcards.task,
    )
