"""Rule release: write and print the `hf upload` command of every release folder."""

from pathlib import Path

from biocompact.atomic import atomic_open
from biocompact.release import upload_command
from biocompact.runlog import job_logging

with job_logging(snakemake) as log:
    commands = [
        upload_command(f"{snakemake.params.namespace}/{Path(folder).name}", folder)
        for folder in snakemake.input
    ]
    with atomic_open(snakemake.output[0]) as handle:
        handle.write("".join(command + "\n" for command in commands))
    log.info("\n".join(["Upload each release folder (hf auth login first):", *commands]))
