"""Rule release_model: one Hub-ready release folder."""

from biocompact.entries import parse_entry
from biocompact.release.rules import release_model
from biocompact.release.settings import ModelRelease
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    release_model(
        parse_entry(ModelRelease, named_files(snakemake.params), "rule release_model"),
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
    )
