"""Errors raised for unusable corpus inputs."""

from __future__ import annotations

import os


class CorpusFileError(ValueError):
    """An input file is unreadable, malformed or fails its checksum.

    The message always starts with the file, so a failing job names its culprit.
    """

    def __init__(self, path: str | os.PathLike, problem: str) -> None:
        self.path = str(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")
