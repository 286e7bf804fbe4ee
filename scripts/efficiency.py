"""Measure parameters, FLOPs, throughput, latency and memory of the compared models together."""

from biocompact.efficiency.rules import efficiency
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    efficiency(
        named_files(snakemake.params),
        outputs=named_files(snakemake.output),
        threads=snakemake.threads,
    )
