"""Prepare one file of a registered dataset: read its member from the verified source
archive, convert it to the harness format, read it as fine-tuning will, check it against
the registry (label set, published size), and only then move it into the cache."""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from pathlib import Path

from biocompact.datasets.check import CheckError, check_split
from biocompact.datasets.convert import CONVERTERS, GOLDEN, ConversionError, prepared_files
from biocompact.datasets.errors import DatasetError
from biocompact.datasets.fetch import ARCHIVE_ERRORS, read_member
from biocompact.datasets.registry import REGISTRY, Dataset, Registry
from biocompact.files.atomic import atomic_path
from biocompact.records.dataset_counts import CheckedCounts, PreparedFileCounts
from biocompact.taskfiles.bioasq import read_bioasq_golden
from biocompact.taskfiles.formats import FORMATS
from biocompact.taskfiles.readers import DatasetFormatError

LOG = logging.getLogger(__name__)


def _read_and_check(dataset: Dataset, split: str, fold: str | None, path: Path) -> CheckedCounts:
    """Read the converted file as fine-tuning will (raises on zero examples) and check it
    against the registry."""
    examples: Sequence[object]
    if split == GOLDEN:
        examples = list(read_bioasq_golden(path).values())
    else:
        examples = FORMATS[dataset.family, dataset.format].reader(path)
    return check_split(dataset, split, examples, fold)


def prepare_file(
    name: str,
    relative: str,
    archive: str | os.PathLike,
    url: str,
    output: str | os.PathLike,
    registry: Registry = REGISTRY,
) -> PreparedFileCounts:
    """Write the prepared file ``relative`` of dataset ``name`` to ``output``; return its
    checked counts (see :func:`check_split`) with ``file`` and ``bytes``. Any failure raises
    :class:`DatasetError` and leaves no output."""
    dataset = registry.dataset(name)
    files = prepared_files(dataset)
    if relative not in files:
        raise DatasetError(name, url, relative, f"not a file of this dataset; has {sorted(files)}")
    member, split = files[relative]
    fold = relative.split("/")[0] if dataset.folds and split != GOLDEN else None
    try:
        raw = read_member(Path(archive), member)
    except KeyError as error:
        raise DatasetError(name, url, member, f"missing from {archive}: {error}") from None
    except ARCHIVE_ERRORS as error:
        raise DatasetError(name, url, member, f"unreadable archive {archive}: {error}") from None
    try:
        text = raw.decode("utf-8")
        converted = CONVERTERS[dataset.converter if split != GOLDEN else "copy"](text)
    except (UnicodeDecodeError, ConversionError) as error:
        raise DatasetError(name, url, member, f"cannot convert: {error}") from None
    with atomic_path(output) as temporary:
        temporary.write_text(converted, encoding="utf-8")
        try:
            counts = _read_and_check(dataset, split, fold, temporary)
        except (DatasetFormatError, CheckError) as error:
            problem = str(error).replace(str(temporary), f"converted {relative}")
            raise DatasetError(name, url, member, problem) from None
    return PreparedFileCounts(counts=counts, file=relative, bytes=len(converted.encode("utf-8")))
