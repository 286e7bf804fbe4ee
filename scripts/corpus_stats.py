"""Sum the per-file corpus statistics (PubMed, PMC and local text)."""

from biocompact.corpus.rules import corpus_stats
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    corpus_stats(
        named_files(snakemake.params),
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
    )
