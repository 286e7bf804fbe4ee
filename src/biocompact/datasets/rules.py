"""Rule entry points of the datasets stage: one function per rule of
workflow/rules/datasets.smk, named after the rule."""

from __future__ import annotations

import logging
from collections.abc import Mapping

from biocompact.datasets.convert import source_members
from biocompact.datasets.fetch import download_source
from biocompact.datasets.prepare import prepare_file
from biocompact.datasets.registry import REGISTRY
from biocompact.datasets.settings import DatasetFile, SourceDownload
from biocompact.files.atomic import write_json
from biocompact.records.base import record_data
from biocompact.records.dataset_counts import PreparedFileCounts

LOG = logging.getLogger(__name__)


def download_dataset(
    download: SourceDownload, *, outputs: Mapping[str, str]
) -> tuple[str, list[str]]:
    """Registry source ``download.source`` from ``download.url`` to ``outputs["archive"]``,
    verified (``download_source``)."""
    digest, skipped = download_source(
        REGISTRY.sources[download.source],
        download.url,
        outputs["archive"],
        lock_file=download.lock_file,
        extracted=source_members(REGISTRY, download.source),
        retries=download.retries,
    )
    LOG.info("%s: sha256 %s", outputs["archive"], digest)
    LOG.info("%d unsafe members skipped (never read): %s", len(skipped), ", ".join(skipped))
    return digest, skipped


def prepare_dataset(
    prepared: DatasetFile, *, inputs: Mapping[str, str], outputs: Mapping[str, str]
) -> PreparedFileCounts:
    """File ``prepared.file`` of dataset ``prepared.dataset`` from ``inputs["archive"]`` to
    ``outputs["file"]``, its checked counts to ``outputs["counts"]`` (JSON, for the
    report)."""
    counts = prepare_file(
        prepared.dataset, prepared.file, inputs["archive"], prepared.url, outputs["file"]
    )
    data = record_data(counts)
    write_json(outputs["counts"], data)
    LOG.info("%s: %s", outputs["file"], data)
    return counts
