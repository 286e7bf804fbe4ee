"""Re-score every format of a fine-tuned model on its task's test set, size it, and time the
formats together on CPU."""

from biocompact.compression.evaluation import evaluate_formats
from biocompact.finetuning.settings import FinetuningTask
from biocompact.runlog import job_logging

with job_logging(snakemake):
    formats = snakemake.params.formats
    evaluate_formats(
        {name: snakemake.input[name] for name in formats},
        FinetuningTask.from_entry(snakemake.params.task),
        int(snakemake.wildcards.seed),
        dict(zip(formats, snakemake.output.evaluations)),
        dict(zip(formats, snakemake.output.predictions)),
        batch_sizes=snakemake.params.batch_sizes,
        sequence_lengths=snakemake.params.sequence_lengths,
        repeats=snakemake.params.repeats,
        threads=snakemake.threads,
        model_name=snakemake.wildcards.model,
        task_name=snakemake.wildcards.task,
    )
