"""Sum the per-file corpus statistics (PubMed, PMC and local text)."""

from biocompact.corpus.rules import corpus_stats
from biocompact.corpus.settings import CorpusFiles
from biocompact.entries import parse_entry
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    corpus_stats(
        parse_entry(CorpusFiles, named_files(snakemake.params), "rule corpus_stats"),
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
    )
