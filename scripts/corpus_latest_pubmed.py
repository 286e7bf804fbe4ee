"""Apply deletions and newer versions across all PubMed files: one keep list per file."""

from biocompact.corpus.updates import write_keep_lists
from biocompact.runlog import job_logging

with job_logging(snakemake) as log:
    write_keep_lists(
        snakemake.input.documents,
        snakemake.input.metas,
        snakemake.output.keep,
        snakemake.output.pmids,
    )
