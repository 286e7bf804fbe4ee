"""Download a source archive once, verify its SHA-256 (the registry's, else the one recorded
in the checksum lock file at the first download) and read members from it safely."""

from __future__ import annotations

import fcntl
import hashlib
import os
import stat
import tarfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import IO

from biocompact.atomic import atomic_path
from biocompact.corpus.download import CHUNK_BYTES, with_retries
from biocompact.corpus.errors import CorpusFileError
from biocompact.datasets.errors import DatasetError
from biocompact.datasets.registry import Source

ARCHIVE_ERRORS = (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError, ValueError)


def _copy_with_sha256(response: IO[bytes], target: IO[bytes]) -> str:
    digest = hashlib.sha256()
    target.seek(0)
    target.truncate()
    while chunk := response.read(CHUNK_BYTES):
        digest.update(chunk)
        target.write(chunk)
    return digest.hexdigest()


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
    return name[2:] if name.startswith("./") else name


def _scan(archive: Path, wanted: str | None = None) -> tuple[dict[str, bool], bytes | None]:
    """One pass over a zip or (compressed) tar archive: member name -> is a regular file,
    and the bytes of member ``wanted`` when it is one. Raises ValueError on a member with an
    unsafe path, and the archive modules' errors on an unreadable archive."""
    members: dict[str, bool] = {}
    data = None
    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as handle:
            for info in handle.infolist():
                _check(info.filename, stat.S_ISLNK(info.external_attr >> 16))
                members[info.filename] = not info.is_dir()
            if wanted is not None and members.get(wanted):
                data = handle.read(wanted)  # checks the member's CRC
        return members, data
    with tarfile.open(archive, "r:*") as handle:
        for info in handle:
            _check(info.name, info.issym() or info.islnk())
            name = _normalised(info.name)
            members[name] = info.isfile()
            if name == wanted and info.isfile():
                extracted = handle.extractfile(info)
                data = extracted.read() if extracted is not None else None
    return members, data


def list_members(archive: Path) -> dict[str, bool]:
    """Member name -> is a regular file (see :func:`_scan`)."""
    return _scan(archive)[0]


def _check(name: str, is_link: bool) -> None:
    if problem := unsafe_member(name, is_link):
        raise ValueError(f"member {name!r} {problem}; refusing to extract from this archive")


def read_member(archive: Path, member: str) -> bytes:
    """The bytes of one regular-file member, every member's path checked safe on the way."""
    members, data = _scan(archive, member)
    if data is None:
        state = "not a file" if member in members else "not"
        raise KeyError(f"member {member!r} is {state} in the archive")
    return data


def download_source(
    source: Source,
    url: str,
    output: str | os.PathLike,
    lock_file: str | os.PathLike,
    retries: int = 4,
    backoff_s: float = 2.0,
) -> str:
    """Download ``source`` from ``url`` (its registry URL or a mirror) to ``output``; verify
    it is a safe, readable archive and that its SHA-256 matches the registry or the lock
    file (recording it there on the first download). Returns the SHA-256."""
    lock_path = Path(lock_file)
    where = f"the {source.name} archive"
    with atomic_path(output) as temporary:
        try:
            with open(temporary, "wb") as target:
                actual = with_retries(
                    url, lambda response: _copy_with_sha256(response, target), retries, backoff_s
                )
        except CorpusFileError as error:
            raise DatasetError(where, url, str(output), error.problem) from error
        try:
            list_members(temporary)
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
    return actual
