"""Fetch corpus files (a URL or a local folder) and verify their MD5.

``source`` is ``https://``, ``http://``, ``ftp://`` or ``file://`` URL, or a folder path
(relative to the working directory). PubMed files live at ``{source}/{folder}/{stem}.xml.gz``
with ``folder`` ``baseline`` or ``updatefiles``, each beside an NCBI-style sidecar
``{stem}.xml.gz.md5`` that reads ``MD5(pubmed25n0001.xml.gz)= <32 hex digits>``; PMC files
(bulk packages or articles) at ``{source}/{name}``, with such a sidecar when verified.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import logging
import os
import re
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any, TypeVar

from biocompact.atomic import atomic_path
from biocompact.corpus.errors import CorpusFileError

LOG = logging.getLogger(__name__)

FOLDERS = ("baseline", "updatefiles")
URL_SCHEMES = ("http://", "https://", "ftp://", "file://")
SIDECAR = re.compile(r"MD5\((?P<name>[^)]+)\)\s*=\s*(?P<digest>[0-9a-fA-F]{32})\s*")
CHUNK_BYTES = 1 << 20
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


def _is_transient(error: Exception) -> bool:
    """Server hiccups and dropped connections are retried; missing files are not."""
    if isinstance(error, urllib.error.HTTPError):
        return error.code == 429 or error.code >= 500
    if isinstance(error, urllib.error.URLError):
        return not isinstance(error.reason, FileNotFoundError)
    return isinstance(error, (http.client.HTTPException, ConnectionError, TimeoutError))


def with_retries(url: str, read: Callable[[IO[bytes]], T], retries: int, backoff_s: float) -> T:
    """Call ``read(response)`` on ``url``, retrying transient errors with exponential back-off."""
    for attempt in range(retries + 1):
        try:
            with urllib.request.urlopen(url, timeout=60) as response:
                return read(response)
        except (urllib.error.URLError, http.client.HTTPException, OSError) as error:
            if attempt == retries or not _is_transient(error):
                raise CorpusFileError(url, f"download failed: {error}") from error
            delay = backoff_s * 2**attempt
            LOG.warning("%s: %s; retry %d/%d in %.0f s", url, error, attempt + 1, retries, delay)
            time.sleep(delay)
    raise AssertionError("unreachable")


def read_md5_sidecar(text: str, name: str, url: str) -> str:
    """The hex digest an NCBI ``.md5`` sidecar states for file ``name``."""
    match = SIDECAR.fullmatch(text)
    if match is None:
        raise CorpusFileError(url, f"not an NCBI MD5 sidecar ('MD5(name)= hex'): {text[:80]!r}")
    if match["name"] != name:
        raise CorpusFileError(url, f"sidecar is for {match['name']!r}, not {name!r}")
    return match["digest"].lower()


def copy_with_digest(response: IO[bytes], target: IO[bytes], algorithm: str) -> str:
    """Copy ``response`` over ``target`` (from its start, in chunks) and return the copy's
    hex digest by ``algorithm`` (a ``hashlib`` name: ``md5`` for NCBI's sidecars)."""
    digest = hashlib.new(algorithm)
    target.seek(0)
    target.truncate()
    while chunk := response.read(CHUNK_BYTES):
        digest.update(chunk)
        target.write(chunk)
    return digest.hexdigest()


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
        sidecar = with_retries(
            url + ".md5",
            lambda response: response.read().decode("ascii", "replace"),
            retries,
            backoff_s,
        )
        expected = read_md5_sidecar(sidecar, url.rsplit("/", 1)[-1], url + ".md5")
    with atomic_path(output) as temporary, open(temporary, "wb") as target:
        actual = with_retries(
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


def run_pubmed_download(settings: Mapping[str, Any], *, outputs: Mapping[str, Any]) -> str:
    """Rule corpus_download_pubmed: PubMed file ``settings["stem"]`` of NCBI's
    ``settings["folder"]`` under ``settings["source"]`` to ``outputs["raw"]``."""
    return download_pubmed_file(
        settings["source"],
        settings["folder"],
        settings["stem"],
        outputs["raw"],
        verify_md5=settings["verify_md5"],
    )


def run_pmc_download(settings: Mapping[str, Any], *, outputs: Mapping[str, Any]) -> str:
    """Rule corpus_download_pmc: PMC file ``settings["pmc_file"]`` under
    ``settings["source"]`` to ``outputs["raw"]``."""
    return download_file(
        source_url(settings["source"], settings["pmc_file"]),
        outputs["raw"],
        verify_md5=settings["verify_md5"],
    )
