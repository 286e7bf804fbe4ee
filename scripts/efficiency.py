"""Measure parameters, FLOPs, throughput, latency and memory of one model."""

from biocompact.efficiency import benchmark
from biocompact.runlog import job_logging

with job_logging(snakemake):
    benchmark(output=snakemake.output[0], threads=snakemake.threads, **snakemake.params)
