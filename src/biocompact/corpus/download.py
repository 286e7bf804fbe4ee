"""Fetch corpus files (a URL or a local folder) and verify their MD5.

``source`` is ``https://``, ``http://``, ``ftp://`` or ``file://`` URL, or a folder path
(relative to the working directory). PubMed files live at ``{source}/{folder}/{stem}.xml.gz``
with ``folder`` ``baseline`` or ``updatefiles``, each beside an NCBI-style sidecar
``{stem}.xml.gz.md5`` that reads ``MD5(pubmed25n0001.xml.gz)= <32 hex digits>``; PMC files
(bulk packages or articles) at ``{source}/{name}``, with such a sidecar when verified.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, TypeVar

from biocompact.corpus.errors import CorpusFileError
from biocompact.files.atomic import atomic_path
from biocompact.files.download import DownloadError, copy_with_digest, with_retries

LOG = logging.getLogger(__name__)

FOLDERS = ("baseline", "updatefiles")
URL_SCHEMES = ("http://", "https://", "ftp://", "file://")
SIDECAR = re.compile(r"MD5\((?P<name>[^)]+)\)\s*=\s*(?P<digest>[0-9a-fA-F]{32})\s*")
T = TypeVar("T")


def source_url(source: str, *parts: str) -> str:
    """URL of ``parts`` below ``source``; a folder path becomes a ``file://`` URL."""
    base = source if source.startswith(URL_SCHEMES) else Path(source).resolve().as_uri()
    return "/".join([base.rstrip("/"), *parts])


def pubmed_url(source: str, folder: str, name: str) -> str:
    """URL of ``name`` in ``folder`` (``baseline`` or ``updatefiles``) of ``source``."""
    if folder not in FOLDERS:
        raise ValueError(f"PubMed folder must be one of {FOLDERS}, got {folder!r}")
    return source_url(source, folder, name)


def read_md5_sidecar(text: str, name: str, url: str) -> str:
    """The hex digest an NCBI ``.md5`` sidecar states for file ``name``."""
    match = SIDECAR.fullmatch(text)
    if match is None:
        raise CorpusFileError(url, f"not an NCBI MD5 sidecar ('MD5(name)= hex'): {text[:80]!r}")
    if match["name"] != name:
        raise CorpusFileError(url, f"sidecar is for {match['name']!r}, not {name!r}")
    return match["digest"].lower()


def read_url(url: str, read: Callable[[IO[bytes]], T], retries: int, backoff_s: float) -> T:
    """``read(response)`` of ``url`` with retries (``with_retries``); a failure is a
    ``CorpusFileError`` naming the URL."""
    try:
        return with_retries(url, read, retries, backoff_s)
    except DownloadError as error:
        raise CorpusFileError(error.url, error.problem) from error


def download_file(
    url: str,
    output: str | os.PathLike,
    verify_md5: bool = True,
    retries: int = 4,
    backoff_s: float = 2.0,
) -> str:
    """Download ``url`` to ``output``, verified against ``{url}.md5``; return its MD5.

    The file appears at ``output`` only when complete and (with ``verify_md5``) matching
    its sidecar; a mismatch raises :class:`CorpusFileError` naming both digests.
    """
    expected = None
    if verify_md5:
        sidecar = read_url(
            url + ".md5",
            lambda response: response.read().decode("ascii", "replace"),
            retries,
            backoff_s,
        )
        expected = read_md5_sidecar(sidecar, url.rsplit("/", 1)[-1], url + ".md5")
    with atomic_path(output) as temporary, open(temporary, "wb") as target:
        actual = read_url(
            url, lambda response: copy_with_digest(response, target, "md5"), retries, backoff_s
        )
        if expected is not None and actual != expected:
            raise CorpusFileError(url, f"MD5 mismatch: sidecar says {expected}, file has {actual}")
    LOG.info("%s -> %s (md5 %s%s)", url, output, actual, ", verified" if expected else "")
    return actual


def download_pubmed_file(
    source: str,
    folder: str,
    stem: str,
    output: str | os.PathLike,
    *,
    verify_md5: bool = True,
    retries: int = 4,
    backoff_s: float = 2.0,
) -> str:
    """Download ``{source}/{folder}/{stem}.xml.gz`` to ``output`` (see :func:`download_file`)."""
    url = pubmed_url(source, folder, f"{stem}.xml.gz")
    return download_file(url, output, verify_md5, retries, backoff_s)


@contextlib.contextmanager
def evict_if_unreadable(raw: str | os.PathLike) -> Iterator[None]:
    """Remove the downloaded file ``raw`` from the download cache when reading it fails.

    A file that matched its checksum can still be unreadable (a damaged mirror, or no
    checksum checked). Left in place, it would satisfy the download rule for ever; removed,
    the next run fetches it again, so fixing the source is all a user has to do.
    """
    try:
        yield
    except CorpusFileError as error:
        Path(raw).unlink(missing_ok=True)
        raise CorpusFileError(
            raw,
            f"{error.problem} (removed from the download cache: the next run downloads "
            "it again, so fix or replace the source file first)",
        ) from error
