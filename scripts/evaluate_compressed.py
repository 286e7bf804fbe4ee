"""Re-score every format of a fine-tuned model on its task's test set, size it, and time the
formats together on CPU."""

from biocompact.compression.rules import evaluate_compressed
from biocompact.compression.settings import CompressedEvaluation
from biocompact.entries import parse_entry
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    evaluate_compressed(
        parse_entry(
            CompressedEvaluation,
            # the seed is its wildcard's text
            {**named_files(snakemake.params), "seed": int(snakemake.params.seed)},
            "rule evaluate_compressed",
        ),
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
        threads=snakemake.threads,
    )
