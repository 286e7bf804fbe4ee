"""Download one PMC Open Access file (bulk package or article), optionally MD5-verified."""

from biocompact.corpus.download import run_pmc_download
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    run_pmc_download(
        named_files(snakemake.params),
        outputs=named_files(snakemake.output),
    )
