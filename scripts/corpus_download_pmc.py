"""Download one PMC Open Access file (bulk package or article), optionally MD5-verified."""

from biocompact.corpus.rules import corpus_download_pmc
from biocompact.corpus.settings import PmcDownload
from biocompact.entries import parse_entry
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    corpus_download_pmc(
        parse_entry(PmcDownload, named_files(snakemake.params), "rule corpus_download_pmc"),
        outputs=named_files(snakemake.output),
    )
