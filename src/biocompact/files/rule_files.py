"""A rule's named files as its entry point reads them."""

from __future__ import annotations

import os
from collections.abc import Sequence


def optional_file(named: str | os.PathLike[str] | Sequence[str] | None) -> str | None:
    """A named file that only some configurations of its rule have: its path, or None where
    the configuration has none (Snakemake gives such an input as ``[]``)."""
    if isinstance(named, (str, os.PathLike)):
        return os.fspath(named) or None
    return None
