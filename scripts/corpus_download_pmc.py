"""Download one PMC Open Access file (bulk package or article), optionally MD5-verified."""

from biocompact.corpus.rules import corpus_download_pmc
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    corpus_download_pmc(
        named_files(snakemake.params),
        outputs=named_files(snakemake.output),
    )
