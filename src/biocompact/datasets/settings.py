"""The settings of the datasets stage's rules, one frozen dataclass per rule's params (a
rule script parses them with ``biocompact.entries.parse_entry``)."""

from __future__ import annotations

from dataclasses import dataclass


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
