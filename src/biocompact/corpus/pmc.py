"""Parse PMC Open Access articles (JATS ``.nxml``) into JSON-lines documents.

Input is a bulk package (``.tar.gz`` of ``.nxml``/``.xml`` articles) or one article file.
Packages are streamed member by member (``tarfile`` stream mode): nothing is extracted,
so no member can be written anywhere, and links, special files and names that would
escape a folder (absolute, ``..``) are skipped and counted as ``unsafe_member``.

Identifiers and dates come from ``pubmed_parser`` (``parse_article_meta``,
``parse_date``) on the parsed tree. Paragraph text is collected here rather than with
``pubmed_parser.parse_pubmed_paragraph``, which keeps only paragraphs with citations,
mixes figure/table captions into the body and loses text nested two levels deep.
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import json
import logging
import os
import re
import tarfile
import zlib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from lxml import etree
from pubmed_parser.pubmed_oa_parser import parse_article_meta, parse_date

from biocompact.corpus.errors import CorpusFileError
from biocompact.corpus.settings import PmcSettings
from biocompact.files.atomic import atomic_open, write_json

LOG = logging.getLogger(__name__)

ARTICLE_SUFFIXES = (".nxml", ".xml")
CAPTIONED = frozenset({"fig", "table-wrap", "supplementary-material"})
INLINE_SKIPPED = CAPTIONED | {"disp-formula", "table", "alternatives"}
CITATION = "\x00"  # stands for a dropped citation marker until the text is cleaned
# "needed [1]." / "process [7], [8]-[9], and" / "(<xref/>, <xref/>)": markers, their
# separators and brackets, and the space before them
_MARKERS = r"\x00(?:\s*[,;\u2013-]?\s*\x00)*"
CITATIONS = re.compile(rf"\s*(?:[\[(]\s*{_MARKERS}\s*[\])]|{_MARKERS})")
PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=True)


@dataclasses.dataclass(frozen=True)
class PmcOptions:
    """What to keep of an article and which articles to sample: the parsing part of the
    config's ``corpus.pmc`` (``PmcSettings``), whose defaults these are."""

    captions: bool = PmcSettings.captions
    tables: bool = PmcSettings.tables
    references: bool = PmcSettings.references
    sample_fraction: float = PmcSettings.sample_fraction
    seed: int = PmcSettings.seed


@dataclasses.dataclass(frozen=True)
class PmcDocument:
    """One article, as written to ``pmc/parsed/{file}.jsonl.gz``; paragraphs one a line."""

    pmcid: str
    pmid: str
    year: int | None
    title: str
    abstract: str
    body: str


def sampled(key: str, fraction: float, seed: int) -> bool:
    """Whether ``key`` is in the ``fraction`` sample of ``seed``: stable across jobs and runs."""
    if fraction >= 1.0:
        return True
    digest = hashlib.blake2b(f"{seed}:{key}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") < fraction * 2**64


def _raw_text(element: etree._Element, options: PmcOptions) -> str:
    parts = [element.text or ""]
    for child in element:
        if not isinstance(child.tag, str) or child.tag.startswith("{"):
            pass  # comments, MathML and other foreign markup
        elif child.tag == "xref" and child.get("ref-type") == "bibr" and not options.references:
            parts.append(CITATION)
        elif child.tag not in INLINE_SKIPPED:
            parts.append(_raw_text(child, options))
        parts.append(child.tail or "")
    return "".join(parts)


def _text(element: etree._Element, options: PmcOptions) -> str:
    """Text of ``element`` without formulas, nested figures/tables, and (unless
    ``options.references``) citation markers with their brackets and separators."""
    return " ".join(CITATIONS.sub("", _raw_text(element, options)).split())


def _paragraphs(element: etree._Element, options: PmcOptions) -> Iterator[str]:
    """Paragraph texts under ``element`` in document order (section titles left out)."""
    for child in element:
        if not isinstance(child.tag, str) or child.tag == "title":
            continue
        if child.tag == "p":
            yield _text(child, options)
            for floating in child.iterdescendants(*CAPTIONED):  # figures inside a paragraph
                yield from _captioned(floating, options)
        elif child.tag in CAPTIONED:
            yield from _captioned(child, options)
        elif child.tag == "ref-list":
            if options.references:
                yield from _references(child)
        else:
            yield from _paragraphs(child, options)


def _captioned(element: etree._Element, options: PmcOptions) -> Iterator[str]:
    """What is kept of a figure, table or supplement: captions, table rows, table notes."""
    if options.captions:
        for caption in element.iterfind("caption"):
            yield from _paragraphs(caption, options)
    if options.tables and element.tag == "table-wrap":
        for row in element.iter("tr"):
            yield " ".join(_text(cell, options) for cell in row if cell.tag in ("td", "th"))
        for foot in element.iterfind("table-wrap-foot"):
            yield from _paragraphs(foot, options)


def _references(ref_list: etree._Element) -> Iterator[str]:
    """One line per reference; its parts (often without separators in JATS) space-joined."""
    for ref in ref_list.iter("ref"):
        yield " ".join(part.strip() for part in ref.itertext() if part.strip())  # type: ignore[misc]  # lxml-stubs: itertext yields str


def _year(root: etree._Element) -> int | None:
    for date_type in ("ppub", "epub", "collection"):
        year = parse_date(root, date_type).get("year")
        if year:
            break
    else:
        year = root.findtext("front/article-meta/pub-date/year")
    return int(year) if year and year.strip().isdigit() else None


def parse_article(data: bytes, options: PmcOptions, where: str) -> PmcDocument:
    """One JATS article from its bytes; ``where`` names it in errors."""
    try:
        root = etree.fromstring(data, PARSER)
    except etree.XMLSyntaxError as error:
        line = error.position[0] if error.position else "?"
        raise CorpusFileError(where, f"line {line}: malformed XML: {error.msg}") from error
    if root.tag != "article":
        raise CorpusFileError(where, f"root element is <{root.tag}>, expected <article>")
    meta = parse_article_meta(root)
    title = root.find("front/article-meta/title-group/article-title")
    abstract = [
        text
        for element in root.iterfind("front/article-meta/abstract")
        for text in _paragraphs(element, options)
        if text
    ]
    body = root.find("body")
    paragraphs = [text for text in _paragraphs(body, options) if text] if body is not None else []
    if options.references:
        paragraphs += [
            text for refs in root.iterfind("back/ref-list") for text in _references(refs)
        ]
    return PmcDocument(
        pmcid=(meta["pmc"] or "").strip(),
        pmid=(meta["pmid"] or "").strip(),
        year=_year(root),
        title=_text(title, options) if title is not None else "",
        abstract="\n".join(abstract),
        body="\n".join(paragraphs),
    )


def _unsafe(member: tarfile.TarInfo) -> bool:
    name = PurePosixPath(member.name)
    return not member.isfile() or name.is_absolute() or ".." in name.parts


def iter_articles(path: str | os.PathLike) -> Iterator[tuple[str, bytes | None]]:
    """``(name, bytes)`` of every article in a package or article file, in order.

    Unsafe archive members come as ``(name, None)``; other members are not articles and
    are passed over. A corrupt or truncated archive raises :class:`CorpusFileError`.
    """
    path = Path(path)
    if path.stat().st_size == 0:
        raise CorpusFileError(path, "empty file")
    if not path.name.endswith((".tar.gz", ".tgz")):
        yield path.name, path.read_bytes()
        return
    try:
        with tarfile.open(path, mode="r|gz") as archive:
            for member in archive:
                if _unsafe(member):
                    yield member.name, None
                elif member.name.endswith(ARTICLE_SUFFIXES):
                    content = archive.extractfile(member)
                    assert content is not None  # a regular file: _unsafe let no other through
                    yield member.name, content.read()
    except (tarfile.TarError, EOFError, gzip.BadGzipFile, zlib.error, OSError) as error:
        raise CorpusFileError(path, f"corrupt or truncated archive: {error}") from error


def parse_pmc(
    source: str | os.PathLike,
    documents: str | os.PathLike,
    meta: str | os.PathLike,
    options: PmcOptions = PmcOptions(),
) -> dict:
    """Write the sampled articles of ``source`` as JSON lines to ``documents``, a summary to
    ``meta``: ``file``, ``records`` (articles seen), ``documents`` and ``skipped``
    (``not_sampled``, ``no_text``, ``unsafe_member``). Returns the summary."""
    records = 0
    skipped: Counter[str] = Counter()
    with atomic_open(documents, compresslevel=1) as out:
        for name, data in iter_articles(source):
            if data is None:
                skipped["unsafe_member"] += 1
                continue
            records += 1
            document = parse_article(data, options, f"{source}:{name}")
            if not sampled(document.pmcid or name, options.sample_fraction, options.seed):
                skipped["not_sampled"] += 1
            elif not (document.abstract or document.body):
                skipped["no_text"] += 1
            else:
                out.write(json.dumps(vars(document), ensure_ascii=False) + "\n")
    summary = {
        "file": Path(source).name,
        "records": records,
        "documents": records - skipped["not_sampled"] - skipped["no_text"],
        "skipped": dict(sorted(skipped.items())),
    }
    write_json(meta, summary)
    return summary
