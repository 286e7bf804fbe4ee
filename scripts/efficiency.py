"""Measure parameters, FLOPs, throughput, latency and memory of the compared models together."""

from biocompact.efficiency.benchmark import run_efficiency
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    run_efficiency(
        named_files(snakemake.params),
        outputs=named_files(snakemake.output),
        threads=snakemake.threads,
    )
