"""Downloads of a URL (``http``, ``https``, ``ftp`` or ``file``) with retries of transient
errors and the digest of what was copied (the corpus's PubMed and PMC files, the datasets'
archives)."""

from __future__ import annotations

import hashlib
import http.client
import logging
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import IO, TypeVar

LOG = logging.getLogger(__name__)

CHUNK_BYTES = 1 << 20
T = TypeVar("T")


class DownloadError(ValueError):
    """A URL could not be read: the message starts with the URL."""

    def __init__(self, url: str, problem: str) -> None:
        self.url = url
        self.problem = problem
        super().__init__(f"{url}: {problem}")


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
                raise DownloadError(url, f"download failed: {error}") from error
            delay = backoff_s * 2**attempt
            LOG.warning("%s: %s; retry %d/%d in %.0f s", url, error, attempt + 1, retries, delay)
            time.sleep(delay)
    raise AssertionError("unreachable")


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
