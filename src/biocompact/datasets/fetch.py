"""Download a source archive once, verify its SHA-256 (the registry's, else the one recorded
in the checksum lock file at the first download) and read members from it safely."""

from __future__ import annotations

import fcntl
import logging
import os
import posixpath
import stat
import tarfile
import zipfile
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import IO

from biocompact.datasets.errors import DatasetError
from biocompact.datasets.registry import Source
from biocompact.files.atomic import atomic_path
from biocompact.files.download import DownloadError, copy_with_digest, with_retries

LOG = logging.getLogger(__name__)

ARCHIVE_ERRORS = (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError, ValueError)


@contextmanager
def _locked(path: Path) -> Iterator[IO[str]]:
    """The checksum lock file, opened for reading and appending under an exclusive lock
    (parallel downloads of different archives share it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+", encoding="utf-8") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            handle.seek(0)
            yield handle
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def read_lock(handle: IO[str], lock_path: Path) -> dict[str, str]:
    """Source name -> SHA-256 of a lock file of ``<sha256> <source> <url>`` lines."""
    recorded = {}
    for number, line in enumerate(handle, start=1):
        if not line.strip() or line.startswith("#"):
            continue
        cells = line.split()
        if len(cells) != 3 or len(cells[0]) != 64:
            raise ValueError(f"{lock_path}:{number}: expected '<sha256> <source> <url>'")
        recorded[cells[1]] = cells[0]
    return recorded


def unsafe_member(name: str, is_link: bool) -> str | None:
    """Why an archive member may not be extracted (absolute, ``..``, a link), else None."""
    if is_link:
        return "is a link"
    path = PurePosixPath(name)
    if path.is_absolute() or name.startswith("\\") or (len(name) > 1 and name[1] == ":"):
        return "has an absolute path"
    if ".." in path.parts:
        return "has '..' in its path"
    return None


def _normalised(name: str) -> str:
    """A member name as it would land on disk: without a leading ``/`` or ``./``, with
    ``a/../`` collapsed."""
    return posixpath.normpath(name.lstrip("/")) if name.strip("/.") else name


NOT_A_FILE = "is not a regular file"


def _scan(archive: Path, wanted: str | None = None) -> tuple[dict[str, str | None], bytes | None]:
    """One pass over a zip or (compressed) tar archive: the name each member would land at
    -> None for a safe regular file, else why it is not read (``'<name>' is a link``, ...,
    or :data:`NOT_A_FILE` for a folder); and the bytes of member ``wanted`` when it is a
    safe regular file. Raises the archive modules' errors on an unreadable archive."""
    members: dict[str, str | None] = {}
    data = None

    def record(name: str, is_link: bool, is_file: bool) -> bool:
        """Note one member; whether it is the safe regular file wanted."""
        problem = unsafe_member(name, is_link)
        landing = _normalised(name)
        problem = f"{name!r} {problem}" if problem else (None if is_file else NOT_A_FILE)
        members[landing] = members.get(landing) or problem  # an unsafe duplicate sticks
        return landing == wanted and members[landing] is None

    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as handle:
            for info in handle.infolist():
                is_link = stat.S_ISLNK(info.external_attr >> 16)
                if record(info.filename, is_link, not info.is_dir()):
                    data = handle.read(info)  # checks the member's CRC
        return members, data
    with tarfile.open(archive, "r:*") as tar:
        for member in tar:
            if record(member.name, member.issym() or member.islnk(), member.isfile()):
                extracted = tar.extractfile(member)
                data = extracted.read() if extracted is not None else None
    return members, data


class UnsafeMemberError(ValueError):
    """An archive member the registry reads has an unsafe path or is a link."""


def unsafe_members(archive: Path, extracted: Collection[str]) -> list[str]:
    """Why each unsafe member (a link, an absolute path, ``..``) of ``archive`` is left
    unread; raises :class:`UnsafeMemberError` when one would land on a member of
    ``extracted`` (those the registry reads), and the archive modules' errors on an
    unreadable archive."""
    skipped = []
    for landing, problem in _scan(archive)[0].items():
        if problem is None or problem == NOT_A_FILE:
            continue
        if landing in extracted:
            raise UnsafeMemberError(
                f"member {problem} and would be read as {landing!r}; refusing to extract it"
            )
        skipped.append(problem)
    return skipped


def read_member(archive: Path, member: str) -> bytes:
    """The bytes of one safe regular-file member."""
    members, data = _scan(archive, member)
    if data is None:
        problem = members.get(member) or "is not in the archive"
        raise KeyError(f"member {member!r}: {problem}")
    return data


def download_source(
    source: Source,
    url: str,
    output: str | os.PathLike,
    *,
    lock_file: str | os.PathLike,
    extracted: Collection[str],
    retries: int = 4,
    backoff_s: float = 2.0,
) -> tuple[str, list[str]]:
    """Download ``source`` from ``url`` (its registry URL or a mirror) to ``output``; verify
    it is a readable archive whose ``extracted`` members (those the registry reads) are
    safe, and that its SHA-256 matches the registry or the lock file (recording it there on
    the first download). Returns the SHA-256 and the unsafe members left unread."""
    lock_path = Path(lock_file)
    where = f"the {source.name} archive"
    with atomic_path(output) as temporary:
        try:
            with open(temporary, "wb") as target:
                actual = with_retries(
                    url,
                    lambda response: copy_with_digest(response, target, "sha256"),
                    retries,
                    backoff_s,
                )
        except DownloadError as error:
            raise DatasetError(where, url, str(output), error.problem) from error
        try:
            skipped = unsafe_members(temporary, extracted)
        except UnsafeMemberError as error:
            raise DatasetError(where, url, str(output), str(error)) from None
        except ARCHIVE_ERRORS as error:
            raise DatasetError(
                where, url, str(output), f"not a readable archive: {error}"
            ) from None
        with _locked(lock_path) as handle:
            recorded = read_lock(handle, lock_path).get(source.name)
            expected, origin = (
                (source.sha256, "the registry") if source.sha256 else (recorded, str(lock_path))
            )
            if expected is not None and actual != expected:
                raise DatasetError(
                    where,
                    url,
                    str(output),
                    f"SHA-256 mismatch: {origin} says {expected}, the download has {actual}",
                )
            if expected is None:
                handle.write(f"{actual} {source.name} {source.url}\n")
    return actual, skipped
