"""Convert one split file of a registered dataset from its verified source archive."""

from biocompact.datasets.prepare import prepare_file
from biocompact.runlog import job_logging

with job_logging(snakemake) as log:
    size = prepare_file(
        snakemake.wildcards.dataset,
        snakemake.wildcards.file,
        snakemake.input.archive,
        snakemake.params.url,
        snakemake.output[0],
    )
    log.info("%s: %d bytes", snakemake.output[0], size)
