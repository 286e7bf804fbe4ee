"""The release rules' settings, parsed from their params."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ModelRelease:
    """What one release folder carries beside the model: its results file and the Hub
    repository it is prepared for."""

    results: str  # a fine-tuned model's metrics.json, a language model's eval.json
    repo: str  # NAMESPACE/RELEASE


@dataclass(frozen=True)
class ReleaseUpload:
    """Where the release folders are uploaded: one Hub repository each, under ``namespace``."""

    namespace: str
