"""Rule release: write and print the `hf upload` command of every release folder."""

from biocompact.entries import parse_entry
from biocompact.release.rules import release
from biocompact.release.settings import ReleaseUpload
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    release(
        parse_entry(ReleaseUpload, named_files(snakemake.params), "rule release"),
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
    )
