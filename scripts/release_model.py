"""Rule release_model: one Hub-ready release folder."""

from biocompact.release import prepare_release
from biocompact.runlog import job_logging

with job_logging(snakemake):
    prepare_release(
        snakemake.input.model,
        snakemake.params.results,
        snakemake.params.repo,
        snakemake.output[0],
    )
