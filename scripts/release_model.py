"""Rule release_model: one Hub-ready release folder."""

from biocompact.release.rules import release_model
from biocompact.workflow.runlog import job_logging, named_files

with job_logging(snakemake):
    release_model(
        named_files(snakemake.params),
        inputs=named_files(snakemake.input),
        outputs=named_files(snakemake.output),
    )
