"""Bring your own corpus: local text files as pretraining text, beside PubMed and PMC.

Three layouts, each file optionally gzipped (``.gz``):

- ``lines``: one document a line (e.g. one abstract or clinical note a line);
- ``jsonl``: one JSON object a line, its text in ``text_field``;
- ``document``: a whole file is one document, its lines kept apart (a title, then
  sentences or paragraphs, as in GENIA's one-file-per-abstract release).

The documents go through the corpus stage's sentence splitter and statistics
(:func:`biocompact.corpus.sentences.write_documents`). A line that is not UTF-8, an empty
line, malformed JSON or a JSON line without the text is an error naming file and line:
a private corpus is silently truncated or polluted far too easily otherwise.
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Iterable, Iterator
from typing import BinaryIO

from biocompact.corpus.sentences import build_splitter, write_documents
from biocompact.corpus.settings import TEXT_FORMATS
from biocompact.files.atomic import write_json


class LocalTextError(ValueError):
    """A bad line of a local text file (the message names file and line)."""


def _open(path: str | os.PathLike) -> gzip.GzipFile | BinaryIO:
    return gzip.open(path, "rb") if str(path).endswith(".gz") else open(path, "rb")


def _decoded_lines(path: str | os.PathLike) -> Iterator[tuple[int, str]]:
    """``(line number, text)`` of each line of ``path``, without its line break."""
    with _open(path) as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                raise LocalTextError(
                    f"{path}, line {number}: not UTF-8 (byte {raw[error.start]:#04x} at "
                    f"column {error.start + 1})"
                ) from None
            yield number, line.rstrip("\r\n")


def _json_text(path: str | os.PathLike, number: int, line: str, text_field: str) -> str:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as error:
        raise LocalTextError(f"{path}, line {number}: malformed JSON ({error.msg})") from None
    if not isinstance(record, dict) or text_field not in record:
        raise LocalTextError(f"{path}, line {number}: no {text_field!r} field")
    text = record[text_field]
    if not isinstance(text, str):
        raise LocalTextError(
            f"{path}, line {number}: {text_field!r} is a {type(text).__name__}, not a string"
        )
    if not text.strip():
        raise LocalTextError(f"{path}, line {number}: {text_field!r} is empty")
    return text


def read_documents(
    paths: Iterable[str | os.PathLike], format: str = "lines", text_field: str = "text"
) -> Iterator[str]:
    """Yield the text of each document of ``paths`` (in order) laid out as ``format``."""
    if format not in TEXT_FORMATS:
        raise ValueError(f"unknown local text format {format!r}; choose from {TEXT_FORMATS}")
    for path in paths:
        if format == "document":
            lines = [line.strip() for _, line in _decoded_lines(path)]
            text = "\n".join(line for line in lines if line)
            if not text:
                raise LocalTextError(f"{path}: the file holds no text")
            yield text
            continue
        for number, line in _decoded_lines(path):
            if not line.strip():
                raise LocalTextError(f"{path}, line {number}: empty line")
            yield _json_text(path, number, line, text_field) if format == "jsonl" else line


def split_local_text(
    files: Iterable[str | os.PathLike],
    sentences: str | os.PathLike,
    stats: str | os.PathLike,
    *,
    format: str = "lines",
    text_field: str = "text",
    splitter: str = "rules",
    model: str | None = None,
) -> dict:
    """Write the sentences of the documents of ``files``, and their statistics.

    The statistics are those of the PubMed and PMC shards (``documents``, ``sentences``,
    ``words``, ``characters``, ``per_year`` with every document ``unknown``, ``skipped``
    with ``no_text``: documents with no sentence) plus ``records``: documents read.
    """
    records = 0

    def documents() -> Iterator[tuple[str, str, None, str]]:
        nonlocal records
        for text in read_documents(files, format, text_field):
            records += 1
            yield "", text, None, ""

    result = write_documents(
        documents(),
        build_splitter(splitter, model),
        sentences,
        stats,
        skipped={},
        empty_reason="no_text",
    )
    result["records"] = records
    write_json(stats, result)
    return result
