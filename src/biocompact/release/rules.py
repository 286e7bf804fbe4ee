"""Rule entry points of the release stage: one function per rule of
workflow/rules/release.smk, named after the rule."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from biocompact.files.atomic import atomic_open
from biocompact.release.folders import prepare_release, upload_command
from biocompact.release.settings import ModelRelease, ReleaseUpload

LOG = logging.getLogger(__name__)
# upload.sh's first lines: it names the release folders relative to its own folder
UPLOAD_SCRIPT = """#!/bin/sh
# One `hf upload` per release folder beside this script (hf auth login first); runs from any folder.
set -e
cd "$(dirname "$0")"
"""


def release_model(
    model_release: ModelRelease, *, inputs: Mapping[str, str], outputs: Mapping[str, str]
) -> Path:
    """The release folder ``outputs["folder"]`` of ``inputs["model"]`` with its
    ``model_release.results`` file, for Hub repository ``model_release.repo``."""
    return prepare_release(
        inputs["model"], model_release.results, model_release.repo, outputs["folder"]
    )


def release(
    upload: ReleaseUpload, *, inputs: Mapping[str, Sequence[str]], outputs: Mapping[str, str]
) -> list[str]:
    """The ``hf upload`` command of each of ``inputs["folders"]`` (to
    ``upload.namespace``/its name) into the shell script ``outputs["commands"]``, which
    changes to its own folder first (each folder named relative to it: it runs from any
    folder), and to the log."""
    script = Path(outputs["commands"])
    commands = [
        upload_command(
            f"{upload.namespace}/{Path(folder).name}", os.path.relpath(folder, script.parent)
        )
        for folder in inputs["folders"]
    ]
    with atomic_open(script) as handle:
        handle.write(UPLOAD_SCRIPT + "".join(command + "\n" for command in commands))
    script.chmod(0o755)
    heading = f"Upload each release folder (hf auth login first): sh {script}, which runs in"
    LOG.info("\n".join([f"{heading} {script.parent}:", *commands]))
    return commands
