"""Measure parameters, FLOPs, throughput, latency and memory of the compared models together."""

from biocompact.efficiency.rules import efficiency
from biocompact.efficiency.settings import EfficiencyBenchmark
from biocompact.entries import parse_entry
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    efficiency(
        parse_entry(EfficiencyBenchmark, named_files(snakemake.params), "rule efficiency"),
        outputs=named_files(snakemake.output),
        threads=snakemake.threads,
    )
