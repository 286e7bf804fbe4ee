"""Apply PubMed's update files: find, for each PMID, the file holding its latest record.

Files are read in NCBI order (baseline, then update files). Walking the records in that
order, a record replaces the PMID's current one unless its ``Version`` is lower, a
``DeleteCitation`` removes the PMID, and a record after a deletion brings it back. The
DTD puts a file's ``DeleteCitation`` after its records, so deletions apply after them.

That walk is computed vectorised: the winner is the last record with the highest
version among the PMID's records after its last deletion. Only ``pmid`` and ``version``
are kept in memory (about 20 bytes a record), never the texts.
"""

from __future__ import annotations

import gzip
import logging
import os
from collections.abc import Sequence

import numpy as np
import pandas as pd

from biocompact.corpus.pubmed import read_citations
from biocompact.files.atomic import atomic_open, read_json

LOG = logging.getLogger(__name__)


def _events(documents: str | os.PathLike, meta: str | os.PathLike, file: int) -> pd.DataFrame:
    """Records then deletions of one file: columns pmid, version, file, deleted."""
    pmids, versions = [], []
    for citation in read_citations(documents):
        pmids.append(int(citation["pmid"]))
        versions.append(citation["version"])
    deleted = [int(pmid) for pmid in read_json(meta)["deleted_pmids"]]
    return pd.DataFrame(
        {
            "pmid": np.array(pmids + deleted, dtype=np.int64),
            "version": np.array(versions + [0] * len(deleted), dtype=np.int32),
            "file": np.full(len(pmids) + len(deleted), file, dtype=np.int32),
            "deleted": np.array([False] * len(pmids) + [True] * len(deleted)),
        }
    )


def latest_records(
    documents: Sequence[str | os.PathLike], metas: Sequence[str | os.PathLike]
) -> pd.DataFrame:
    """The winning record of every PMID still in PubMed: columns pmid, version, file.

    ``documents`` and ``metas`` are the parsed files in NCBI order; ``file`` indexes them.
    Rows come in record order (file, then position in the file).
    """
    if len(documents) != len(metas):
        raise ValueError(f"{len(documents)} document files but {len(metas)} meta files")
    events = pd.concat(
        [_events(doc, meta, index) for index, (doc, meta) in enumerate(zip(documents, metas))],
        ignore_index=True,
    )
    last_deletion = events.index.to_series()[events["deleted"]].groupby(events["pmid"]).max()
    records = events[~events["deleted"]]
    cutoff = records["pmid"].map(last_deletion).fillna(-1)
    alive = records[records.index > cutoff]
    winners = alive.sort_values(["pmid", "version"], kind="stable").drop_duplicates(
        "pmid", keep="last"
    )
    return winners.sort_index()[["pmid", "version", "file"]]


def write_keep_lists(
    documents: Sequence[str | os.PathLike],
    metas: Sequence[str | os.PathLike],
    keep: Sequence[str | os.PathLike],
    pmids: str | os.PathLike | None = None,
) -> None:
    """Write, for each parsed file, the PMIDs whose latest record lives in it (``keep[i]``),
    and all of them, sorted, as an int64 ``.npy`` array to ``pmids`` (for de-duplication)."""
    if len(keep) != len(documents):
        raise ValueError(f"{len(documents)} document files but {len(keep)} keep lists")
    winners = latest_records(documents, metas)
    if pmids is not None:
        with atomic_open(pmids, "wb") as out:
            np.save(out, np.sort(winners["pmid"].to_numpy(dtype=np.int64)))
    by_file = dict(tuple(winners.groupby("file")["pmid"]))
    for index, path in enumerate(keep):
        kept = by_file.get(index, pd.Series(dtype=np.int64))
        with atomic_open(path) as out:
            out.writelines(f"{pmid}\n" for pmid in kept)
        LOG.info("%s: %d PMIDs keep their latest record here", path, len(kept))


def read_keep_list(path: str | os.PathLike) -> set[str]:
    """The PMIDs of a ``latest/{stem}.keep.txt.gz`` file."""
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return {line.strip() for line in handle if line.strip()}
