"""Transfer sets: read from a plain-text file (one passage a line) or a file in one of the
harness's text or sentence-pair formats, or randomised from a general-domain text file;
stored as JSON Lines ``{"id", "text", "text_pair", "label"}`` (``label`` null when the
source has none, ``text_pair`` null for single texts). Light: no torch."""

from __future__ import annotations

import gzip
import json
import logging
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from biocompact.atomic import atomic_open
from biocompact.finetuning.bioasq import read_pubmedqa_json, read_yesno_json
from biocompact.finetuning.readers import (
    DatasetFormatError,
    LabelledText,
    non_empty,
    read_nli_jsonl,
    read_re_biobert_tsv,
    read_re_blue_tsv,
)
from biocompact.task_distillation.randomised import randomised_examples
from biocompact.task_distillation.settings import TEXT_FORMAT, TransferSetSettings

logger = logging.getLogger(__name__)

READERS: dict[str, Callable[[str | Path], list[LabelledText]]] = {
    "biobert_tsv": read_re_biobert_tsv,
    "blue_tsv": read_re_blue_tsv,
    "mednli_jsonl": read_nli_jsonl,
    "bioasq_yesno_json": read_yesno_json,
    "pubmedqa_json": read_pubmedqa_json,
}


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
    if fmt not in READERS:
        raise ValueError(f"unknown transfer format {fmt!r}; known: {[TEXT_FORMAT, *READERS]}")
    return READERS[fmt](path)


def transfer_examples(settings: TransferSetSettings) -> list[LabelledText]:
    """The examples of one transfer set."""
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
    return read_source(settings.path, settings.format)[: settings.max_examples]


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


def build_transfer_set(settings: TransferSetSettings, out: str | Path) -> int:
    """Write the transfer set of ``settings`` to ``out``; return its number of examples."""
    examples = transfer_examples(settings)
    write_transfer_set(out, examples)
    return len(examples)


def run_transfer_set(settings: TransferSetSettings, *, outputs: Mapping[str, str]) -> int:
    """Rule transfer_set: ``build_transfer_set`` into the rule's ``transfer`` output, its size
    logged."""
    count = build_transfer_set(settings, outputs["transfer"])
    logger.info("transfer set %s: %d examples", settings.name, count)
    return count
