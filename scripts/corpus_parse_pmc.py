"""Parse one PMC file (bulk package or article) into JSON-lines documents and a summary."""

from biocompact.corpus.download import evict_if_unreadable
from biocompact.corpus.pmc import PmcOptions, parse_pmc
from biocompact.runlog import job_logging

with job_logging(snakemake) as log, evict_if_unreadable(snakemake.input[0]):
    summary = parse_pmc(
        snakemake.input[0],
        snakemake.output.documents,
        snakemake.output.meta,
        PmcOptions(**snakemake.params.options),
    )
    log.info(
        "%s: %d articles, %d documents, skipped %s",
        summary["file"],
        summary["records"],
        summary["documents"],
        summary["skipped"],
    )
