"""Rule release: write and print the `hf upload` command of every release folder."""

from biocompact.release.rules import release
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    release(
        named_files(snakemake.params),
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
    )
