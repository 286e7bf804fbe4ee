"""Convert one split file of a registered dataset from its verified source archive and
check it against the registry; its checked counts go to a JSON file for the report."""

from biocompact.atomic import write_json
from biocompact.datasets.prepare import prepare_file
from biocompact.runlog import job_logging

with job_logging(snakemake) as log:
    counts = prepare_file(
        snakemake.wildcards.dataset,
        snakemake.wildcards.file,
        snakemake.input.archive,
        snakemake.params.url,
        snakemake.output.file,
    )
    write_json(snakemake.output.counts, counts)
    log.info("%s: %s", snakemake.output.file, counts)
