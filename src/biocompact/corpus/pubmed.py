"""Parse PubMed/MEDLINE XML (baseline, update and efetch files) into JSON-lines citations.

Both of NLM's layouts are read: ``PubmedArticleSet`` (PubMed since 2017; each citation a
``PubmedArticle`` holding a ``MedlineCitation``) and the pre-2017 MEDLINE DTD's
``MedlineCitationSet`` (each citation a bare ``MedlineCitation``), each with its
``DeleteCitation`` block.

The file is streamed with ``lxml.etree.iterparse`` and every handled element is freed, so
memory stays flat however large the file. ``pubmed_parser.parse_medline_xml`` is not used
for the records themselves because it ignores ``DeleteCitation`` and the PMID ``Version``,
cannot drop structured-abstract labels, loses text nested two levels deep
(``<b><i>Background:</i></b>``) and runs at a third of the speed (benchmarks/corpus_throughput.py);
its publication-year rule is kept (see ``_year``).
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import logging
import os
import re
import zlib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from lxml import etree

from biocompact.corpus.errors import CorpusFileError
from biocompact.files.atomic import atomic_open, write_json

LOG = logging.getLogger(__name__)

ROOT_TAGS = ("PubmedArticleSet", "MedlineCitationSet")
RECORD_TAGS = ("PubmedArticle", "PubmedBookArticle", "MedlineCitation", "DeleteCitation")
ENGLISH = ("", "eng")
FOUR_DIGITS = re.compile(r"\d{4}")


@dataclasses.dataclass(frozen=True)
class Citation:
    """One PubMed citation, as written to ``parsed/{stem}.jsonl.gz``."""

    pmid: str
    version: int
    year: int | None
    language: str
    title: str
    abstract: str


@dataclasses.dataclass(frozen=True)
class Deletion:
    """A ``DeleteCitation`` entry: the PMID leaves PubMed."""

    pmid: str


@dataclasses.dataclass(frozen=True)
class Skipped:
    """A record that yields no citation (``reason`` says why)."""

    reason: str


Record = Citation | Deletion | Skipped


def _text(element: etree._Element | None) -> str:
    """All text inside ``element`` (nested markup included), whitespace collapsed."""
    if element is None:
        return ""
    text = element.text or "" if len(element) == 0 else "".join(element.itertext())  # type: ignore[arg-type]  # lxml-stubs: itertext yields str
    return " ".join(text.split())


def _pmid(element: etree._Element, where: str) -> tuple[str, int]:
    pmid = (element.text or "").strip()
    if not pmid.isdigit():
        raise ValueError(f"{where}: PMID {pmid!r} is not a number")
    version = element.get("Version", "1")
    if not version.isdigit():
        raise ValueError(f"{where}: PMID {pmid} has Version {version!r}, not a number")
    return pmid, int(version)


def _abstract(
    medline: etree._Element, article: etree._Element, section_labels: bool, other_abstract: bool
) -> str:
    """Abstract sections, one a line; ``LABEL: text`` when ``section_labels``.

    Without an ``Abstract``, and with ``other_abstract``, the first English
    ``OtherAbstract`` (a publisher's or plain-language abstract) stands in for it.
    """
    abstract = _sections(article.iterfind("Abstract/AbstractText"), section_labels)
    if abstract or not other_abstract:
        return abstract
    for other in medline.iterfind("OtherAbstract"):
        if other.get("Language", "") in ENGLISH:
            return _sections(other.iterfind("AbstractText"), section_labels)
    return ""


def _sections(texts: Iterator[etree._Element], section_labels: bool) -> str:
    """The non-empty ``AbstractText`` elements, one a line, labelled when ``section_labels``."""
    sections = []
    for section in texts:
        text = _text(section)
        label = section.get("Label", "").strip()
        if text and section_labels and label:
            text = f"{label}: {text}"
        if text:
            sections.append(text)
    return "\n".join(sections)


def _year(article: etree._Element) -> int | None:
    """``PubDate/Year``, else the first four-digit number of ``PubDate/MedlineDate``.

    The rule of ``pubmed_parser.medline_parser.date_extractor``, without its per-call
    XPath compilation (a third of the extraction time on a full file).
    """
    date = article.find("Journal/JournalIssue/PubDate")
    if date is None:
        return None
    year = date.findtext("Year")
    if year is None:
        match = FOUR_DIGITS.search(date.findtext("MedlineDate") or "")
        year = match[0] if match else None
    return int(year) if year and year.strip().isdigit() else None


def _citation(
    medline: etree._Element | None, section_labels: bool, other_abstract: bool, where: str
) -> Citation:
    pmid_element = medline.find("PMID") if medline is not None else None
    if pmid_element is None:
        raise ValueError(f"{where}: no MedlineCitation/PMID")
    assert medline is not None  # pmid_element was found in it
    pmid, version = _pmid(pmid_element, where)
    article = medline.find("Article")
    if article is None:
        raise ValueError(f"{where}: PMID {pmid} has no MedlineCitation/Article")
    return Citation(
        pmid=pmid,
        version=version,
        year=_year(article),
        language=";".join(_text(language) for language in article.iterfind("Language")),
        title=_text(article.find("ArticleTitle")),
        abstract=_abstract(medline, article, section_labels, other_abstract),
    )


def _open_xml(path: Path):
    return gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb")


def iter_pubmed(
    path: str | os.PathLike, section_labels: bool = False, other_abstract: bool = False
) -> Iterator[Record]:
    """Yield the citations, deletions and skipped records of a PubMed XML file, in order.

    Reads ``.xml.gz`` and plain ``.xml``. A corrupt or truncated gzip, malformed XML,
    bytes that are not valid in the declared encoding, an empty file, a foreign root
    element or a record without a usable PMID raise :class:`CorpusFileError` naming the
    file and the line or record.
    """
    path = Path(path)
    if path.stat().st_size == 0:
        raise CorpusFileError(path, "empty file")
    index = 0
    try:
        with _open_xml(path) as handle:
            context = etree.iterparse(
                handle, events=("end",), tag=RECORD_TAGS, resolve_entities=False
            )
            for _, element in context:
                if element.tag == "MedlineCitation" and element.getparent().tag != ROOT_TAGS[1]:
                    continue  # inside a PubmedArticle: read when that ends
                if element.tag == "DeleteCitation":
                    for pmid_element in element.iterfind("PMID"):
                        yield Deletion(_pmid(pmid_element, "DeleteCitation")[0])
                else:
                    index += 1
                    if element.tag == "PubmedBookArticle":
                        yield Skipped("book_article")
                    else:
                        medline = (
                            element
                            if element.tag == "MedlineCitation"
                            else element.find("MedlineCitation")
                        )
                        yield _citation(medline, section_labels, other_abstract, f"record {index}")
                element.clear(keep_tail=True)
                while element.getprevious() is not None:
                    del element.getparent()[0]
            if context.root.tag not in ROOT_TAGS:
                expected = " or ".join(f"<{tag}>" for tag in ROOT_TAGS)
                raise CorpusFileError(
                    path, f"root element is <{context.root.tag}>, expected {expected}"
                )
    except etree.XMLSyntaxError as error:
        line = error.position[0] if error.position else "?"
        raise CorpusFileError(path, f"line {line}: malformed XML: {error.msg}") from error
    except (EOFError, gzip.BadGzipFile, zlib.error) as error:
        raise CorpusFileError(path, f"corrupt or truncated gzip: {error}") from error
    except ValueError as error:
        if isinstance(error, CorpusFileError):
            raise
        raise CorpusFileError(path, str(error)) from error


def parse_pubmed(
    xml: str | os.PathLike,
    documents: str | os.PathLike,
    meta: str | os.PathLike,
    section_labels: bool = False,
    other_abstract: bool = False,
) -> dict:
    """Write the citations of ``xml`` as JSON lines to ``documents`` and a summary to ``meta``.

    Every citation is written, with or without an abstract, so that a newer version
    without one still supersedes an older version; the sentence stage skips empty ones.
    Returns the summary (``file``, ``records``, ``documents``, ``skipped``, ``deleted_pmids``).
    """
    records = 0
    skipped: Counter[str] = Counter()
    deleted: list[str] = []
    # The parsed files are intermediates read once: gzip level 1 instead of the default 9
    # makes the parse job faster for a few more bytes (measured: docs/speed.md, section
    # "Figures behind code choices").
    with atomic_open(documents, compresslevel=1) as out:
        for record in iter_pubmed(xml, section_labels, other_abstract):
            if isinstance(record, Deletion):
                deleted.append(record.pmid)
                continue
            records += 1
            if isinstance(record, Skipped):
                skipped[record.reason] += 1
            else:
                out.write(json.dumps(vars(record), ensure_ascii=False) + "\n")
    summary = {
        "file": Path(xml).name,
        "records": records,
        "documents": records - sum(skipped.values()),
        "skipped": dict(sorted(skipped.items())),
        "deleted_pmids": deleted,
    }
    write_json(meta, summary)
    return summary


def read_citations(path: str | os.PathLike) -> Iterator[dict]:
    """The citations of a ``parsed/{stem}.jsonl.gz`` file, as dictionaries, in file order."""
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for line_number, line in enumerate(handle, start=1):
            try:
                yield json.loads(line)
            except json.JSONDecodeError as error:
                raise CorpusFileError(path, f"line {line_number}: invalid JSON: {error}") from error
