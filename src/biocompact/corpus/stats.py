"""Sum the per-file corpus statistics into ``results/corpus/stats.json``."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence

from biocompact.files.atomic import read_json, write_json
from biocompact.records.base import record_data
from biocompact.records.corpus_statistics import CorpusStatistics, TextTotals

TOTALS = ("documents", "sentences", "words", "characters")


def sum_corpus_stats(
    sentence_stats: Sequence[str | os.PathLike],
    parse_metas: Sequence[str | os.PathLike],
    stems: Sequence[str],
    output: str | os.PathLike,
    *,
    pmc_stats: Sequence[str | os.PathLike] = (),
    pmc_metas: Sequence[str | os.PathLike] = (),
    pmc_files: Sequence[str] = (),
    text_stats: Sequence[str | os.PathLike] = (),
    text_sources: Sequence[str] = (),
) -> CorpusStatistics:
    """Add up the ``sentences/{stem}.stats.json`` and ``parsed/{stem}.json`` files of ``stems``
    (PubMed), those of ``pmc_files`` (PMC, listed as ``pmc/{file}``) and those of the
    local ``text_sources`` (listed as ``text/{name}``; their stats count their own records).

    The record, written to ``output``, has the ``files``, their ``totals`` (records parsed
    and the sentence stage's totals), ``per_year``, ``skipped`` merging both stages'
    reasons, and ``sources``: the totals of ``pubmed``, ``pmc`` and ``text`` apart.
    """
    sources = {
        "pubmed": (sentence_stats, parse_metas, stems),
        "pmc": (pmc_stats, pmc_metas, pmc_files),
        "text": (text_stats, text_stats, text_sources),  # a text shard's stats are its meta
    }
    totals: Counter[str] = Counter()
    per_year: Counter[str] = Counter()
    skipped: Counter[str] = Counter()
    by_source = {}
    for source, (stats_paths, meta_paths, names) in sources.items():
        if not len(stats_paths) == len(meta_paths) == len(names):
            raise ValueError(
                f"{source}: {len(names)} files, {len(stats_paths)} stats, {len(meta_paths)} metas"
            )
        source_totals: Counter[str] = Counter()
        for stats_path, meta_path in zip(stats_paths, meta_paths):
            stats, meta = read_json(stats_path), read_json(meta_path)
            source_totals.update({key: stats[key] for key in TOTALS})
            source_totals["records"] += meta["records"]
            per_year.update(stats["per_year"])
            skipped.update(stats["skipped"])
            if meta_path != stats_path:
                skipped.update(meta["skipped"])
        totals.update(source_totals)
        by_source[source] = _text_totals(source_totals)
    result = CorpusStatistics(
        files=[
            *stems,
            *(f"pmc/{name}" for name in pmc_files),
            *(f"text/{name}" for name in text_sources),
        ],
        totals=_text_totals(totals),
        per_year=dict(sorted(per_year.items())),
        skipped=dict(sorted(skipped.items())),
        sources=by_source,
    )
    write_json(output, record_data(result))
    return result


def _text_totals(counts: Counter[str]) -> TextTotals:
    """The records and the sentence stage's totals among ``counts``."""
    return TextTotals(records=counts["records"], **{key: counts[key] for key in TOTALS})
