"""Measure parameters, FLOPs, throughput, latency and memory of the compared models together."""

from biocompact.efficiency import benchmark
from biocompact.runlog import job_logging

with job_logging(snakemake):
    benchmark(
        model_paths=snakemake.params.model_paths,
        outputs=dict(zip(snakemake.params.models, snakemake.output)),
        batch_sizes=snakemake.params.batch_sizes,
        sequence_lengths=snakemake.params.sequence_lengths,
        repeats=snakemake.params.repeats,
        threads=snakemake.threads,
    )
