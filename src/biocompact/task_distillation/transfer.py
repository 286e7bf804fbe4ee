"""Transfer sets: read from a plain-text file (one passage a line) or a file in one of the
harness's text or sentence-pair formats, or randomised from a general-domain text file;
stored as JSON Lines ``{"id", "text", "text_pair", "label"}`` (``label`` null when the
source has none, ``text_pair`` null for single texts). An example that shares an n-gram or
a PMID with a test set (``biocompact.corpus.decontamination``) is dropped and counted in
the set's record. Light: no torch."""

from __future__ import annotations

import gzip
import json
import logging
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

from biocompact.corpus.decontamination import EvaluationIndex
from biocompact.corpus.evaluation_text import EvaluationExample
from biocompact.files.atomic import atomic_open
from biocompact.records.transfer_set import TransferSetRecord
from biocompact.task_distillation.randomised import randomised_examples
from biocompact.task_distillation.settings import TEXT_FORMAT, TransferSetSettings
from biocompact.taskfiles.formats import TRANSFER_FORMATS
from biocompact.taskfiles.readers import DatasetFormatError, LabelledText, non_empty

logger = logging.getLogger(__name__)


def read_passages(path: str | Path) -> list[LabelledText]:
    """The non-blank lines of a text file (gzipped when it ends in .gz), unlabelled."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as handle:
        lines = [(number, line.strip()) for number, line in enumerate(handle, start=1)]
    passages = [(number, text) for number, text in lines if text]
    return non_empty(
        path,
        [
            LabelledText(str(index), text, "", str(path), number)
            for index, (number, text) in enumerate(passages)
        ],
    )


def read_source(path: str | Path, fmt: str) -> list[LabelledText]:
    """The examples of a transfer file in format ``fmt`` (``text`` or a harness format)."""
    if fmt == TEXT_FORMAT:
        return read_passages(path)
    if fmt not in TRANSFER_FORMATS:
        raise ValueError(
            f"unknown transfer format {fmt!r}; known: {[TEXT_FORMAT, *TRANSFER_FORMATS]}"
        )
    return TRANSFER_FORMATS[fmt].reader(path)


def transfer_examples(settings: TransferSetSettings) -> list[LabelledText]:
    """The candidate examples of one transfer set, in order (``max_examples`` applies to
    those kept, ``guarded_examples``)."""
    randomised = settings.randomised
    if randomised:
        passages = [example.text for example in read_passages(randomised.source)]
        return randomised_examples(
            passages,
            randomised.examples,
            randomised.seed,
            randomised.questions,
            randomised.question_starters,
        )
    assert settings.path is not None  # TransferSet: path or randomised
    return read_source(settings.path, settings.format)


def guarded_examples(
    examples: Iterable[LabelledText],
    index: EvaluationIndex | None,
    max_examples: int | None,
    fmt: str = TEXT_FORMAT,
) -> tuple[list[LabelledText], list[set[str]]]:
    """The first ``max_examples`` (all when None) of ``examples`` that share no n-gram and
    no PMID (those its format declares) with a test set of ``index`` (none dropped without
    an index), and for each example dropped on the way the tasks whose test sets it
    overlaps."""
    transfer_format = TRANSFER_FORMATS.get(fmt)
    test_splits = {
        number: meta.task
        for number, meta in enumerate(index.splits if index else [])
        if meta.split == "test"
    }
    kept: list[LabelledText] = []
    dropped: list[set[str]] = []
    for example in examples:
        if max_examples is not None and len(kept) == max_examples:
            break
        texts = tuple(filter(None, (example.text, example.text_pair)))
        pmids = transfer_format.pmids(example) if transfer_format else ()
        overlaps = index.example_overlaps(EvaluationExample(texts, pmids)) if index else set()
        tasks = {test_splits[split] for split in overlaps if split in test_splits}
        if tasks:
            dropped.append(tasks)
            continue
        kept.append(example)
    return kept, dropped


def write_transfer_set(path: str | Path, examples: Sequence[LabelledText]) -> None:
    """Write ``examples`` as transfer-set JSON Lines, atomically."""
    with atomic_open(path) as handle:
        for example in examples:
            record = {
                "id": example.id,
                "text": example.text,
                "text_pair": example.text_pair,
                "label": example.label or None,
            }
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")


def read_transfer_set(path: str | Path) -> list[LabelledText]:
    """The examples of a transfer-set (or soft-label) JSON Lines file (label "" when null)."""
    examples = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            record = json.loads(line)
            if not record.get("text"):
                raise DatasetFormatError(path, number, "no text")
            examples.append(
                LabelledText(
                    str(record["id"]),
                    record["text"],
                    record.get("label") or "",
                    str(path),
                    number,
                    record.get("text_pair"),
                )
            )
    return non_empty(path, examples)


def build_transfer_set(
    settings: TransferSetSettings, out: str | Path, index: EvaluationIndex | None = None
) -> TransferSetRecord:
    """Write the transfer set of ``settings`` to ``out``, without the examples that overlap
    a test set of ``index``; return its record: ``examples`` written, ``dropped`` (and
    ``dropped_by_task``), the tasks whose test sets were checked and the n-gram size."""
    fmt = TEXT_FORMAT if settings.randomised else settings.format
    limit = None if settings.randomised else settings.max_examples  # randomised: `examples`
    kept, dropped = guarded_examples(transfer_examples(settings), index, limit, fmt)
    write_transfer_set(out, kept)
    tests = [meta.task for meta in (index.splits if index else []) if meta.split == "test"]
    by_task = Counter(task for tasks in dropped for task in tasks)
    return TransferSetRecord(
        name=settings.name,
        examples=len(kept),
        checked_test_sets=tests,
        ngram=index.ngram if index else None,
        dropped=len(dropped),
        dropped_by_task=dict(sorted(by_task.items())),
    )
