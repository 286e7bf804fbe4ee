"""Rule entry points of the release stage: one function per rule of
workflow/rules/release.smk, named after the rule."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from biocompact.files.atomic import atomic_open
from biocompact.release.folders import prepare_release, upload_command
from biocompact.release.settings import ModelRelease, ReleaseUpload

LOG = logging.getLogger(__name__)


def release_model(
    model_release: ModelRelease, *, inputs: Mapping[str, Any], outputs: Mapping[str, Any]
) -> Path:
    """The release folder ``outputs["folder"]`` of ``inputs["model"]`` with its
    ``model_release.results`` file, for Hub repository ``model_release.repo``."""
    return prepare_release(
        inputs["model"], model_release.results, model_release.repo, outputs["folder"]
    )


def release(
    upload: ReleaseUpload, *, inputs: Mapping[str, Any], outputs: Mapping[str, Any]
) -> list[str]:
    """The ``hf upload`` command of each of ``inputs["folders"]`` (to
    ``upload.namespace``/its name) into ``outputs["commands"]``, and to the log."""
    commands = [
        upload_command(f"{upload.namespace}/{Path(folder).name}", folder)
        for folder in inputs["folders"]
    ]
    with atomic_open(outputs["commands"]) as handle:
        handle.write("".join(command + "\n" for command in commands))
    LOG.info("\n".join(["Upload each release folder (hf auth login first):", *commands]))
    return commands
