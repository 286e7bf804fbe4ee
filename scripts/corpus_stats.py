"""Sum the per-file corpus statistics (PubMed, PMC and local text)."""

from biocompact.corpus.stats import sum_corpus_stats
from biocompact.runlog import job_logging

with job_logging(snakemake) as log:
    sum_corpus_stats(
        snakemake.input.stats,
        snakemake.input.metas,
        snakemake.params.stems,
        snakemake.output[0],
        snakemake.input.pmc_stats,
        snakemake.input.pmc_metas,
        snakemake.params.pmc_files,
        snakemake.input.text_stats,
        snakemake.params.text_sources,
    )
