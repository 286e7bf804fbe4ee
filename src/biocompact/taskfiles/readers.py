"""Dataset readers for fine-tuning tasks; malformed input raises naming file and line.

NER: BioBERT TSV (``token<TAB>tag``, blank line between sentences) and CoNLL
(whitespace-separated columns, token first, tag last, ``-DOCSTART-`` lines skipped).
Tags are IOB2; untyped ``B``/``I`` become ``B-ENT``/``I-ENT`` so that seqeval sees
typed entities.

Relation extraction / sentence classification: BioBERT TSV (``sentence<TAB>label``,
test files with an ``index<TAB>sentence<TAB>label`` header) and BLUE TSV
(``id<TAB>sentence<TAB>label``, header optional).

Multi-label document classification: BLUE HoC TSV (``labels<TAB>sentence<TAB>index``,
labels ``0_0,1_1,...``, index ``PMID_sN``). Sentence pairs: MedNLI JSONL
(``sentence1``, ``sentence2``, ``gold_label``, ``pairID``). Question answering readers are
in ``bioasq.py``, sentence similarity's in ``similarity.py``. Each format is declared beside
its reader, in ``FORMATS`` (``task_format.TaskFormat``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from biocompact.taskfiles.task_format import TaskFormat

UNTYPED_ENTITY = "ENT"
_TAG = re.compile(r"^(O|([BI])(-(\S+))?)$")
_HEADER_IDS = {"index", "id"}


class DatasetFormatError(ValueError):
    """Malformed dataset file; the message names the file and line."""

    def __init__(self, path: str | Path, line: int | None, problem: str) -> None:
        where = f"{path}:{line}" if line is not None else str(path)
        super().__init__(f"{where}: {problem}")


@dataclass(frozen=True)
class TaggedSentence:
    """One NER sentence; token ``i`` is on line ``line + i`` of ``source``."""

    tokens: list[str]
    tags: list[str]
    source: str
    line: int

    def label_positions(self) -> Iterator[tuple[int, str]]:
        """(line, label) of every gold label, for label checks."""
        return ((self.line + i, tag) for i, tag in enumerate(self.tags))


@dataclass(frozen=True)
class LabelledText:
    """One classification example (a sentence with masked entities, a document, a
    premise/hypothesis or question/context pair with ``text_pair``); examples sharing a
    ``group`` (a question asked of several snippets) are scored as one."""

    id: str
    text: str
    label: str
    source: str
    line: int
    text_pair: str | None = None
    group: str | None = None

    def label_positions(self) -> Iterator[tuple[int, str]]:
        """(line, label) of the gold label, for label checks."""
        yield self.line, self.label


@dataclass(frozen=True)
class MultiLabelText:
    """One multi-label example: a sentence of ``document`` with the set of its labels."""

    id: str
    text: str
    labels: frozenset[str]
    document: str
    source: str
    line: int

    def label_positions(self) -> Iterator[tuple[int, str]]:
        """(line, label) of every gold label, for label checks."""
        return ((self.line, label) for label in sorted(self.labels))


def _lines(path: str | Path) -> Iterator[tuple[int, str]]:
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            yield number, line.rstrip("\r\n")


def json_lines(path: str | Path) -> Iterator[tuple[int, dict]]:
    for number, line in _lines(path):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise DatasetFormatError(path, number, f"malformed JSON ({error.msg})") from None
        if not isinstance(record, dict):
            raise DatasetFormatError(path, number, "expected a JSON object")
        yield number, record


def non_empty(path: str | Path, examples: list) -> list:
    if not examples:
        raise DatasetFormatError(path, None, "no examples (empty split)")
    return examples


def typed_tag(tag: str) -> str | None:
    """The typed IOB2 form of ``tag`` (``B`` -> ``B-ENT``, ``B-Chemical`` and ``O`` as they
    are); None when ``tag`` is not an IOB2 tag."""
    match = _TAG.match(tag)
    if not match:
        return None
    if tag == "O" or match.group(3):
        return tag
    return f"{tag}-{UNTYPED_ENTITY}"


def normalise_tag(tag: str, path: str | Path, line: int) -> str:
    """Return the typed IOB2 form of ``tag`` (``B`` -> ``B-ENT``); reject other schemes."""
    typed = typed_tag(tag)
    if typed is None:
        raise DatasetFormatError(
            path, line, f"unknown tag scheme: {tag!r} (expected O, B, I, B-<type> or I-<type>)"
        )
    return typed


def _read_tagged(
    path: str | Path, split_line: Callable[[str], list[str] | None], docstart: bool
) -> list[TaggedSentence]:
    sentences: list[TaggedSentence] = []
    tokens: list[str] = []
    tags: list[str] = []
    start = 0

    def flush() -> None:
        if tokens:
            sentences.append(TaggedSentence(list(tokens), list(tags), str(path), start))
            tokens.clear()
            tags.clear()

    for number, line in _lines(path):
        if not line.strip() or (docstart and line.startswith("-DOCSTART-")):
            flush()
            continue
        cells = split_line(line)
        if cells is None:
            raise DatasetFormatError(path, number, f"malformed line {line!r}")
        if not tokens:
            start = number
        tokens.append(cells[0])
        tags.append(normalise_tag(cells[-1], path, number))
    flush()
    return non_empty(path, sentences)


def read_ner_biobert_tsv(path: str | Path) -> list[TaggedSentence]:
    """Read BioBERT NER TSV: ``token<TAB>tag`` a line, blank line between sentences."""

    def split(line: str) -> list[str] | None:
        cells = line.split("\t")
        return cells if len(cells) == 2 and cells[0] else None

    return _read_tagged(path, split, docstart=False)


def read_ner_conll(path: str | Path) -> list[TaggedSentence]:
    """Read CoNLL columns: token first, tag last (at least two whitespace-separated columns)."""

    def split(line: str) -> list[str] | None:
        cells = line.split()
        return cells if len(cells) >= 2 else None

    return _read_tagged(path, split, docstart=True)


def _is_header(cells: list[str]) -> bool:
    return len(cells) == 3 and cells[0] in _HEADER_IDS and cells[2] == "label"


def _read_labelled(path: str | Path, with_id: bool) -> list[LabelledText]:
    examples: list[LabelledText] = []
    for number, line in _lines(path):
        cells = line.split("\t")
        if number == 1 and _is_header(cells):
            with_id = True
            continue
        expected = 3 if with_id else 2
        if len(cells) != expected or not cells[-1] or not cells[-2]:
            raise DatasetFormatError(
                path,
                number,
                f"expected {expected} non-empty tab-separated columns, got {len(cells)}",
            )
        example_id = cells[0] if with_id else str(len(examples))
        examples.append(LabelledText(example_id, cells[-2], cells[-1], str(path), number))
    return non_empty(path, examples)


def read_re_biobert_tsv(path: str | Path) -> list[LabelledText]:
    """Read BioBERT RE TSV: ``sentence<TAB>label``, or ``index<TAB>sentence<TAB>label`` after
    an ``index sentence label`` header (test files). Without an index, ids are 0, 1, ..."""
    return _read_labelled(path, with_id=False)


def read_re_blue_tsv(path: str | Path) -> list[LabelledText]:
    """Read BLUE TSV: ``id<TAB>sentence<TAB>label``, with or without a header line."""
    return _read_labelled(path, with_id=True)


_HOC_LABEL = re.compile(r"^(\w+)_([01])$")


def read_hoc_tsv(path: str | Path) -> list[MultiLabelText]:
    """Read BLUE HoC TSV: ``labels<TAB>sentence<TAB>index`` after a header; ``labels`` is a
    comma-separated list of ``<label>_<0|1>``, ``index`` is ``<document>_s<N>`` for a
    sentence (BLUE) or a bare ``<document>`` for a whole abstract (BLURB as LinkBERT
    preprocessed it)."""
    examples: list[MultiLabelText] = []
    for number, line in _lines(path):
        cells = line.split("\t")
        if number == 1 and cells == ["labels", "sentence", "index"]:
            continue
        if len(cells) != 3 or not cells[1] or not cells[2]:
            raise DatasetFormatError(
                path,
                number,
                f"expected 3 tab-separated columns labels, sentence, index, got {len(cells)}",
            )
        flags = [_HOC_LABEL.match(flag) for flag in cells[0].split(",")]
        if not all(flags):
            raise DatasetFormatError(
                path, number, f"malformed labels {cells[0]!r} (expected e.g. 0_0,1_1,...)"
            )
        positive = frozenset(flag.group(1) for flag in flags if flag and flag.group(2) == "1")
        document = cells[2].rsplit("_", 1)[0]
        examples.append(MultiLabelText(cells[2], cells[1], positive, document, str(path), number))
    return non_empty(path, examples)


_HOC_SENTENCE = re.compile(r"^(.+)_s(\d+)$")


def hoc_abstracts(examples: list[MultiLabelText]) -> list[MultiLabelText]:
    """The abstracts of ``read_hoc_tsv``'s sentences, as BLURB trains and scores HoC
    (LinkBERT's ``preprocess_blurb.py``): one example per abstract, its sentences (index
    ``<document>_s<N>``) joined with a single space in the order of N (whatever their order
    in the file), its labels the OR of theirs, its id and document the abstract's, its line
    that of its first row in the file; an abstract without a hallmark is kept (empty label
    set). Abstracts come in the order of their first rows. A row whose index is a bare
    ``<document>`` (BLURB's abstract-level file) is an abstract already and stays as it is.

    A document whose sentences are not contiguous in the file (split across regions of it)
    is merged all the same, as grouping by PMID does: the abstract is the document, wherever
    its sentences are, in the place of its first row. Refused, naming the file, the document
    and the lines: a sentence number twice in one document, and a document given both as a
    bare abstract and as sentences."""
    sentences: dict[str, dict[int, MultiLabelText]] = {}
    whole: dict[str, MultiLabelText] = {}  # a bare abstract's first row, by document
    rows: list[MultiLabelText | str] = []  # bare abstracts, and each document at its first
    for example in examples:
        match = _HOC_SENTENCE.match(example.id)
        document = example.document
        if match is None:
            if document in sentences:
                _both(example, sentences[document].values())
            whole.setdefault(document, example)
            rows.append(example)
            continue
        if document in whole:
            _both(example, [whole[document]])
        numbered = sentences.get(document)
        if numbered is None:
            numbered = sentences[document] = {}
            rows.append(document)
        number = int(match.group(2))
        if number in numbered:
            raise DatasetFormatError(
                example.source,
                example.line,
                f"abstract {document}: sentence s{number} again (first on line "
                f"{numbered[number].line})",
            )
        numbered[number] = example
    return [row if isinstance(row, MultiLabelText) else _abstract(sentences[row]) for row in rows]


def _abstract(numbered: dict[int, MultiLabelText]) -> MultiLabelText:
    """One abstract of its sentences by number."""
    ordered = [numbered[number] for number in sorted(numbered)]
    first = min(ordered, key=lambda sentence: sentence.line)
    return MultiLabelText(
        first.document,
        " ".join(sentence.text for sentence in ordered),
        frozenset().union(*(sentence.labels for sentence in ordered)),
        first.document,
        first.source,
        first.line,
    )


def _both(example: MultiLabelText, others: Iterable[MultiLabelText]) -> None:
    lines = ", ".join(str(other.line) for other in sorted(others, key=lambda o: o.line))
    raise DatasetFormatError(
        example.source,
        example.line,
        f"abstract {example.document} is given both whole and as sentences (also on lines {lines})",
    )


NLI_FIELDS = ("sentence1", "sentence2", "gold_label")


def read_nli_jsonl(path: str | Path) -> list[LabelledText]:
    """Read MedNLI-style JSONL: one object a line with ``sentence1`` (premise),
    ``sentence2`` (hypothesis), ``gold_label`` and optionally ``pairID``."""
    examples: list[LabelledText] = []
    for number, record in json_lines(path):
        missing = [
            key for key in NLI_FIELDS if not (isinstance(record.get(key), str) and record[key])
        ]
        if missing:
            raise DatasetFormatError(path, number, f"missing or empty field(s) {missing}")
        examples.append(
            LabelledText(
                str(record.get("pairID", len(examples))),
                record["sentence1"],
                record["gold_label"],
                str(path),
                number,
                text_pair=record["sentence2"],
            )
        )
    return non_empty(path, examples)


def _tokens(example: TaggedSentence) -> tuple[str, ...]:
    return (" ".join(example.tokens),)


def _sentence(example: LabelledText | MultiLabelText) -> tuple[str, ...]:
    return (example.text,)


def _pair(example: LabelledText) -> tuple[str, ...]:
    return (example.text, example.text_pair or "")


def _document(example: MultiLabelText) -> tuple[str, ...]:
    return (example.document,)


# the formats of these readers, in the order of the schema's enum
FORMATS = (
    TaskFormat(
        "biobert_tsv",
        ("ner",),
        read_ner_biobert_tsv,
        TaggedSentence,
        ".tsv",
        _tokens,
        checked_labels=True,
    ),
    TaskFormat(
        "conll", ("ner",), read_ner_conll, TaggedSentence, ".tsv", _tokens, checked_labels=True
    ),
    TaskFormat(
        "biobert_tsv",
        ("re", "dc"),
        read_re_biobert_tsv,
        LabelledText,
        ".tsv",
        _sentence,
        checked_labels=True,
        transfer=True,
    ),
    TaskFormat(
        "blue_tsv",
        ("re", "dc"),
        read_re_blue_tsv,
        LabelledText,
        ".tsv",
        _sentence,
        checked_labels=True,
        transfer=True,
    ),
    TaskFormat(
        "hoc_tsv",
        ("dc",),
        read_hoc_tsv,
        MultiLabelText,
        ".tsv",
        _sentence,
        pmids=_document,
        checked_labels=True,
    ),
    TaskFormat(
        "mednli_jsonl",
        ("nli",),
        read_nli_jsonl,
        LabelledText,
        ".jsonl",
        _pair,
        checked_labels=True,
        transfer=True,
    ),
)
