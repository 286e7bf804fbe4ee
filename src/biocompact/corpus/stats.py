"""Sum the per-file corpus statistics into ``results/corpus/stats.json``."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence

from biocompact.atomic import read_json, write_json

TOTALS = ("documents", "sentences", "words", "characters")


def sum_corpus_stats(
    sentence_stats: Sequence[str | os.PathLike],
    parse_metas: Sequence[str | os.PathLike],
    stems: Sequence[str],
    output: str | os.PathLike,
) -> dict:
    """Add up the ``sentences/{stem}.stats.json`` and ``parsed/{stem}.json`` files of ``stems``.

    The result has ``files`` (the stems), ``records`` (citations parsed), the
    sentence-stage totals and ``per_year``, and ``skipped`` merging both stages' reasons.
    """
    if not len(sentence_stats) == len(parse_metas) == len(stems):
        raise ValueError(
            f"{len(stems)} stems, {len(sentence_stats)} stats files, {len(parse_metas)} metas"
        )
    totals: Counter[str] = Counter()
    per_year: Counter[str] = Counter()
    skipped: Counter[str] = Counter()
    for stats_path, meta_path in zip(sentence_stats, parse_metas):
        stats, meta = read_json(stats_path), read_json(meta_path)
        totals.update({key: stats[key] for key in TOTALS})
        totals["records"] += meta["records"]
        per_year.update(stats["per_year"])
        skipped.update(stats["skipped"])
        skipped.update(meta["skipped"])
    result = {
        "files": list(stems),
        "records": totals["records"],
        **{key: totals[key] for key in TOTALS},
        "per_year": dict(sorted(per_year.items())),
        "skipped": dict(sorted(skipped.items())),
    }
    write_json(output, result)
    return result
