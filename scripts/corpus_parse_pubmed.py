"""Parse one PubMed XML file into JSON-lines citations and a summary."""

from biocompact.corpus.download import evict_if_unreadable
from biocompact.corpus.pubmed import parse_pubmed
from biocompact.runlog import job_logging

with job_logging(snakemake) as log, evict_if_unreadable(snakemake.input[0]):
    summary = parse_pubmed(
        snakemake.input[0],
        snakemake.output.documents,
        snakemake.output.meta,
        section_labels=snakemake.params.section_labels,
        other_abstract=snakemake.params.other_abstract,
    )
    log.info(
        "%s: %d records, %d deletions",
        summary["file"],
        summary["records"],
        len(summary["deleted_pmids"]),
    )
