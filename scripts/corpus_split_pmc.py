"""Split the parsed articles of one PMC file into sentences."""

from biocompact.corpus.sentences import split_pmc_sentences
from biocompact.runlog import job_logging

with job_logging(snakemake) as log:
    split_pmc_sentences(
        snakemake.input.documents,
        snakemake.output.sentences,
        snakemake.output.stats,
        pubmed_pmids=snakemake.input.get("pubmed_pmids"),
        **snakemake.params,
    )
