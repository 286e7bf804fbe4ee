"""Converters from a source's split files to the harness formats, and the layout of a
prepared dataset under the cache (light: only the layout is needed to build the DAG).

LinkBERT's BLURB files are JSON lines read by Hugging Face ``datasets``, written by its
scripts/preprocess_blurb.py: token classification records ``{"tokens", "ner_tags", "id"}``
(lines 188 and 245; run_ner.py reads the tags as the column after ``tokens``; PICO's I-
tags already turned into B-, lines 252-253), sequence classification records ``id``,
``sentence`` or ``sentence1``/``sentence2`` and ``label`` (a class name with negatives
rewritten to ``0``, a float for BIOSSES, a 0/1 list over the ten hallmarks for HoC).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from biocompact.datasets.registry import Dataset, Registry
from biocompact.taskfiles.folds import FOLD_FIELD
from biocompact.taskfiles.formats import SUFFIXES

GOLDEN = "golden"


class ConversionError(ValueError):
    """A record that cannot be converted; the message gives its line."""


def split_file(dataset: Dataset, split: str) -> str:
    """The prepared file of ``split`` relative to the dataset's cache folder (``{fold}/``
    first for a cross-validated dataset)."""
    suffix = ".json" if split == GOLDEN else SUFFIXES[dataset.format]
    folder = f"{FOLD_FIELD}/" if dataset.folds and split != GOLDEN else ""
    return f"{folder}{split}{suffix}"


def prepared_files(dataset: Dataset) -> dict[str, tuple[str, str]]:
    """Every prepared file (relative path) -> (archive member, split) of ``dataset``."""
    files = {}
    for split, member in dataset.members.items():
        for fold in dataset.folds or (None,):
            relative = split_file(dataset, split)
            if fold is not None:
                relative, member_of_fold = (
                    relative.replace(FOLD_FIELD, fold),
                    member.replace(FOLD_FIELD, fold),
                )
            else:
                member_of_fold = member
            files[relative] = (member_of_fold, split)
    return files


def source_members(registry: Registry, source: str) -> set[str]:
    """Every archive member the registry's datasets read from ``source``."""
    return {
        member
        for dataset in registry.datasets.values()
        if dataset.source == source
        for member, _ in prepared_files(dataset).values()
    }


def _records(text: str) -> Iterator[tuple[int, dict]]:
    """(line, record) of JSON lines, or of a JSON array of records."""
    if text.lstrip().startswith("["):
        try:
            records = json.loads(text)
        except json.JSONDecodeError as error:
            raise ConversionError(f"line {error.lineno}: malformed JSON ({error.msg})") from None
        yield from ((1, record) for record in records)
        return
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line)
        except json.JSONDecodeError as error:
            raise ConversionError(f"line {number}: malformed JSON ({error.msg})") from None


def _field(record: dict, key: str, number: int, kind: type | tuple = str) -> Any:
    """``record[key]``, a JSON value checked to be of ``kind`` (not a bool)."""
    value = record.get(key) if isinstance(record, dict) else None
    if not isinstance(value, kind) or isinstance(value, bool):
        raise ConversionError(f"line {number}: missing or malformed field {key!r}")
    return value


def _one_line(text: str) -> str:
    return " ".join(text.split())


def linkbert_tokens(text: str) -> str:
    """Token classification records -> BioBERT TSV (``token<TAB>tag``, blank line between
    sentences)."""
    blocks = []
    for number, record in _records(text):
        tokens = _field(record, "tokens", number, list)
        keys = list(record)
        tags = record[keys[keys.index("tokens") + 1]] if keys[-1] != "tokens" else None
        if not isinstance(tags, list) or len(tags) != len(tokens):
            raise ConversionError(
                f"line {number}: expected a tag list as long as 'tokens' after it"
            )
        blocks.append("".join(f"{token}\t{tag}\n" for token, tag in zip(tokens, tags)))
    return "\n".join(blocks)


def linkbert_sentence(text: str) -> str:
    """Single-sentence classification records -> BLUE TSV (``id<TAB>sentence<TAB>label``).
    Labels pass through as LinkBERT wrote them: ChemProt's and DDI's negatives are already
    ``0`` (every label containing "false", scripts/preprocess_blurb.py lines 85-86)."""
    rows = ["index\tsentence\tlabel\n"]
    for number, record in _records(text):
        label = _field(record, "label", number, (str, int))
        sentence = _one_line(str(_field(record, "sentence", number)))
        rows.append(f"{record.get('id', number)}\t{sentence}\t{label}\n")
    return "".join(rows)


def linkbert_pair(text: str) -> str:
    """Sentence-pair records -> JSON lines with ``sentence1``, ``sentence2``, ``gold_label``
    and ``pairID`` (MedNLI's fields; a float ``gold_label`` for similarity)."""
    rows = []
    for number, record in _records(text):
        label = _field(record, "label", number, (str, int, float))
        rows.append(
            json.dumps(
                {
                    "sentence1": _field(record, "sentence1", number),
                    "sentence2": _field(record, "sentence2", number),
                    "gold_label": label if isinstance(label, str) else float(label),
                    "pairID": str(record.get("id", number)),
                }
            )
            + "\n"
        )
    return "".join(rows)


def linkbert_hoc(text: str) -> str:
    """HoC records -> BLUE HoC TSV (``labels<TAB>sentence<TAB>index``, labels
    ``0_0,1_1,...``). LinkBERT writes one record per abstract: its sentences joined in
    ``sentence``, ``label`` the 0/1 flags over the ten hallmarks OR-ed over them, ``id`` the
    bare PMID (scripts/preprocess_blurb.py lines 144-157); the index is that PMID, which
    the HoC reader takes whole as the document."""
    rows = ["labels\tsentence\tindex\n"]
    seen: dict[str, int] = {}
    for number, record in _records(text):
        flags = _field(record, "label", number, list)
        if not all(flag in (0, 1) for flag in flags):
            raise ConversionError(f"line {number}: 'label' must be a list of 0/1 flags")
        pmid = str(_field(record, "id", number))
        if not pmid.isdigit():
            raise ConversionError(
                f"line {number}: id {pmid!r} is not a bare PMID (expected one record per "
                "abstract, as LinkBERT's HoC_hf files hold)"
            )
        if pmid in seen:
            raise ConversionError(
                f"line {number}: abstract {pmid} again (first on line {seen[pmid]})"
            )
        seen[pmid] = number
        labels = ",".join(f"{i}_{flag}" for i, flag in enumerate(flags))
        sentence = _one_line(str(_field(record, "sentence", number)))
        rows.append(f"{labels}\t{sentence}\t{pmid}\n")
    return "".join(rows)


CONVERTERS: dict[str, Callable[[str], str]] = {
    "copy": lambda text: text,
    "linkbert_tokens": linkbert_tokens,
    "linkbert_sentence": linkbert_sentence,
    "linkbert_pair": linkbert_pair,
    "linkbert_hoc": linkbert_hoc,
}
