"""Which PubMed files to use: a list, a numbered range, or NCBI's directory listing.

``corpus.pubmed.baseline`` / ``updates`` in the config is one of

* a list of file names without ``.xml.gz`` (``[pubmed25n0001, pubmed25n0002]``);
* a range ``{prefix: pubmed25n, first: 1, last: 1274}`` (numbers zero-padded to 4 digits);
* ``all``: every ``*.xml.gz`` in ``{source}/{folder}/`` (NCBI's HTML index or a folder).
  The names found are cached in a text file, so the listing is fetched once (where the
  workflow is started, which has the network) and every job sees the same files; delete
  the cache to pick up new daily update files.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path
from typing import Any

from biocompact.corpus.download import URL_SCHEMES, pubmed_url, read_url
from biocompact.files.atomic import atomic_open

LOG = logging.getLogger(__name__)

LISTED = re.compile(r'href="(?:[^"]*/)?([A-Za-z0-9_.-]+)\.xml\.gz"')


def file_range(prefix: str, first: int, last: int, digits: int = 4) -> list[str]:
    """``prefix`` followed by each number from ``first`` to ``last``, zero-padded."""
    if first > last:
        raise ValueError(f"file range {prefix}: first {first} is after last {last}")
    return [f"{prefix}{number:0{digits}d}" for number in range(first, last + 1)]


def listed_names(index_html: str) -> list[str]:
    """The ``.xml.gz`` file names (without the suffix) linked from an HTML directory index."""
    return sorted(set(LISTED.findall(index_html)))


def discover_names(
    source: str, folder: str, cache: str | os.PathLike, retries: int = 4
) -> list[str]:
    """The files of ``{source}/{folder}/``, read from ``cache`` or listed and cached there."""
    cache = Path(cache)
    if cache.exists():
        return cache.read_text(encoding="utf-8").split()
    if source.startswith(URL_SCHEMES) and not source.startswith("file://"):
        url = pubmed_url(source, folder, "")
        html = read_url(
            url, lambda response: response.read().decode("utf-8", "replace"), retries, 2.0
        )
        names = listed_names(html)
    else:
        local = Path(source.removeprefix("file://")) / folder
        names = sorted(path.name.removesuffix(".xml.gz") for path in local.glob("*.xml.gz"))
    if not names:
        raise ValueError(f"no .xml.gz files listed in {source}/{folder}/")
    with atomic_open(cache) as out:
        out.writelines(f"{name}\n" for name in names)
    LOG.info("%s/%s: %d files, cached in %s", source, folder, len(names), cache)
    return names


def pubmed_file_names(
    pubmed: dict[str, Any], key: str, cache_folder: str | os.PathLike
) -> list[str]:
    """The file names that ``pubmed[key]`` (``baseline`` or ``updates``) stands for."""
    spec = pubmed[key]
    folder = "baseline" if key == "baseline" else "updatefiles"
    if isinstance(spec, list):
        names = list(spec)
    elif isinstance(spec, dict):
        names = file_range(spec["prefix"], spec["first"], spec["last"], spec.get("digits", 4))
    else:
        names = discover_names(pubmed["source"], folder, Path(cache_folder) / f"{folder}.txt")
    return names
