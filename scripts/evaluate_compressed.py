"""Re-score every format of a fine-tuned model on its task's test set, size it, and time the
formats together on CPU."""

from biocompact.compression.rules import evaluate_compressed
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    evaluate_compressed(
        named_files(snakemake.params),
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
        threads=snakemake.threads,
    )
