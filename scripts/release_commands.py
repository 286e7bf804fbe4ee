"""Rule release: write and print the `hf upload` command of every release folder."""

from pathlib import Path

from biocompact.atomic import atomic_open
from biocompact.release import upload_command

commands = [
    upload_command(f"{snakemake.params.namespace}/{Path(folder).name}", folder)
    for folder in snakemake.input
]
with atomic_open(snakemake.output[0]) as handle:
    handle.write("".join(command + "\n" for command in commands))
print("Upload each release folder (hf auth login first):", *commands, sep="\n")
