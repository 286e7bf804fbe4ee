"""The config's ``datasets`` section (``DatasetsSettings``: the schema is generated from it)
and the settings of the datasets stage's rules, one frozen dataclass per rule's params (a
rule script parses them with ``biocompact.entries.parse_entry``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated

from pydantic import Field

from biocompact.entries import ENTRY


@dataclass(frozen=True)
class DatasetsSettings:
    """downloads of the registered public datasets that tasks name by `dataset`"""

    __pydantic_config__ = ENTRY

    checksum_lock: str = "datasets.sha256"
    """file recording the SHA-256 of each source archive at its first download (sources that
    publish none); every later download must match it. Keep it under version control beside
    the config"""
    mirrors: dict[str, str] = field(default_factory=dict)
    """source archive name -> URL (https, ftp or file://) of a copy to download instead of the
    registry's URL; verified the same way"""
    retries: Annotated[int, Field(ge=0)] = 4
    """retries of a transient download error, with exponential back-off"""


@dataclass(frozen=True)
class SourceDownload:
    """One source archive of the registry to download and verify (rule download_dataset)."""

    source: str  # the registry's name of the archive
    url: str  # its registry URL or a mirror's
    lock_file: str  # records the SHA-256 of an archive whose registry entry has none
    retries: int  # retries of a transient download error


@dataclass(frozen=True)
class DatasetFile:
    """One prepared file of a registered dataset (rule prepare_dataset)."""

    dataset: str  # the registry's name of the dataset
    file: str  # the prepared split file, relative to the dataset's folder
    url: str  # where its source archive was downloaded from (named in errors)
