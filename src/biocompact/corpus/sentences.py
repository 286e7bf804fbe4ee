"""Split the latest PubMed citations into sentences: the pretraining text format.

A document is its title (one sentence of its own, when ``include_title``) followed by the
sentences of its abstract. The abstract is split on its section lines (paragraphs) first.
Two splitters: ``rules`` (default, :mod:`biocompact.corpus.sentence_rules`, linear in the
text) and ``scispacy`` (scispaCy's tokenizer with pySBD, or a scispaCy model), for which
any overlong section is cut at a space into pieces of at most ``max_chars`` characters,
so a pathological record cannot stall the segmenter or exceed spaCy's ``max_length``.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import sys
import warnings
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

import numpy as np

from biocompact.corpus.pubmed import read_citations
from biocompact.corpus.sentence_rules import split_text
from biocompact.corpus.settings import SPLITTERS
from biocompact.corpus.updates import read_keep_list
from biocompact.files.atomic import atomic_open, write_json

if TYPE_CHECKING:
    from spacy.language import Language

LOG = logging.getLogger(__name__)

MAX_CHARS = 10_000


@contextlib.contextmanager
def _torch_hidden() -> Iterator[None]:
    """Make ``import torch`` fail while spaCy loads, unless torch is already imported.

    thinc (spaCy's backend) imports torch eagerly whenever it is installed; the corpus
    stage needs none of it and must stay torch-free in a shared environment too.
    """
    if "torch" in sys.modules:
        yield
        return
    sys.modules["torch"] = None  # type: ignore[assignment]
    try:
        yield
    finally:
        if sys.modules.get("torch", ...) is None:
            del sys.modules["torch"]


def chunks(paragraph: str, max_chars: int = MAX_CHARS) -> Iterator[str]:
    """Cut ``paragraph`` at spaces into pieces of at most ``max_chars`` characters."""
    while len(paragraph) > max_chars:
        cut = paragraph.rfind(" ", 0, max_chars + 1)
        cut = cut if cut > 0 else max_chars
        yield paragraph[:cut]
        paragraph = paragraph[cut:].lstrip()
    if paragraph:
        yield paragraph


class RuleSplitter:
    """The biomedical rule splitter, applied to each line (section) of a text."""

    def split(self, documents: Iterable[str]) -> Iterator[list[str]]:
        """Yield the sentences of each text; its lines are never joined into one sentence."""
        for text in documents:
            yield [sentence for line in text.split("\n") for sentence in split_text(line)]


class ScispacySplitter:
    """scispaCy's rule-based tokenizer with pySBD sentences, or a scispaCy model's parser."""

    def __init__(
        self, model: str | None = None, batch_size: int = 64, max_chars: int = MAX_CHARS
    ) -> None:
        with _torch_hidden(), warnings.catch_warnings():
            # scispaCy's suffix pattern trips a harmless regex FutureWarning in every job log.
            warnings.filterwarnings("ignore", "Possible set union", FutureWarning)
            import spacy
            from scispacy.custom_sentence_segmenter import pysbd_sentencizer  # noqa: F401 (registers the spaCy component)
            from scispacy.custom_tokenizer import combined_rule_tokenizer

            if model is None:
                self.nlp = spacy.blank("en")
                self.nlp.tokenizer = combined_rule_tokenizer(self.nlp)
                self.nlp.add_pipe("pysbd_sentencizer")
            else:
                self.nlp = _load_model(model)
        self.batch_size = batch_size
        self.max_chars = max_chars

    def split(self, documents: Iterable[str]) -> Iterator[list[str]]:
        """Yield the sentences of each text; its lines are never joined into one sentence."""
        documents = iter(documents)
        while batch := list(itertools.islice(documents, self.batch_size)):
            pieces = [
                (piece, index)
                for index, text in enumerate(batch)
                for line in text.split("\n")
                for piece in chunks(line.strip(), self.max_chars)
            ]
            sentences: list[list[str]] = [[] for _ in batch]
            for doc, index in self.nlp.pipe(pieces, as_tuples=True, batch_size=self.batch_size):
                sentences[index].extend(
                    text for text in (" ".join(span.text.split()) for span in doc.sents) if text
                )
            yield from sentences


def _load_model(name: str) -> Language:
    """Load an installed scispaCy model with only what sentence boundaries need."""
    import spacy

    try:
        nlp = spacy.load(name, exclude=["ner", "lemmatizer"])
    except OSError as error:
        raise RuntimeError(
            f"sentences.model {name!r} is not installed: install the scispaCy model "
            f"(https://allenai.github.io/scispacy/) or set sentences.model to null"
        ) from error
    if not any(nlp.has_pipe(name) for name in ("parser", "senter", "sentencizer")):
        raise RuntimeError(f"sentences.model {name!r} has no parser, senter or sentencizer")
    return nlp


def build_splitter(
    splitter: str = "rules", model: str | None = None
) -> RuleSplitter | ScispacySplitter:
    """The sentence splitter named in ``config["corpus"]["sentences"]``."""
    if splitter not in SPLITTERS:
        raise ValueError(f"unknown sentence splitter {splitter!r}; choose from {SPLITTERS}")
    if splitter == "scispacy":
        return ScispacySplitter(model)
    if model is not None:
        raise ValueError(f"sentences.model {model!r} needs splitter: scispacy, not {splitter!r}")
    return RuleSplitter()


def latest_citations(
    documents: str | os.PathLike, keep: str | os.PathLike
) -> tuple[list[dict], int]:
    """The citations of a parsed file that are the latest of their PMID, and how many are not.

    When a file holds several records of a kept PMID, the highest version wins (the
    later one on ties), as in :mod:`biocompact.corpus.updates`.
    """
    kept = read_keep_list(keep)
    latest: dict[str, dict] = {}
    records = 0
    for citation in read_citations(documents):
        records += 1
        pmid = citation["pmid"]
        if pmid in kept and citation["version"] >= latest.get(pmid, citation)["version"]:
            latest[pmid] = citation
    return list(latest.values()), records - len(latest)


def write_documents(
    documents: Iterable[tuple[str, str, int | None, str]],
    segmenter: RuleSplitter | ScispacySplitter,
    sentences: str | os.PathLike,
    stats: str | os.PathLike,
    *,
    skipped: dict[str, int],
    empty_reason: str,
    pmids: str | os.PathLike | None = None,
) -> dict:
    """Write ``(title, text, year, pmid)`` documents as sentences, and their statistics.

    A document whose text has no sentence is skipped and counted as ``empty_reason``;
    ``skipped`` holds the other reasons, read once ``documents`` is exhausted. With
    ``pmids``, that file gets the PMID of each written document, one a line in shard order
    (an empty line for a document without one), for decontamination by PMID.
    Returns the statistics.
    """
    totals: Counter[str] = Counter()
    per_year: Counter[str] = Counter()
    empty = 0
    for_titles, for_texts = itertools.tee(documents)
    with (
        atomic_open(sentences) as out,
        atomic_open(pmids) if pmids is not None else contextlib.nullcontext() as ids,
    ):
        texts = (text for _, text, _, _ in for_texts)
        for (title, _, year, pmid), body in zip(for_titles, segmenter.split(texts)):
            if not body:
                empty += 1
                continue
            title = " ".join(title.split())
            lines = [title, *body] if title else body
            out.write("\n".join(lines) + "\n\n")
            if ids is not None:
                ids.write(pmid + "\n")
            totals.update(
                documents=1,
                sentences=len(lines),
                words=sum(len(line.split()) for line in lines),
                characters=sum(len(line) for line in lines),
            )
            per_year[str(year) if year is not None else "unknown"] += 1
    result = {
        "documents": totals["documents"],
        "sentences": totals["sentences"],
        "words": totals["words"],
        "characters": totals["characters"],
        "per_year": dict(sorted(per_year.items())),
        "skipped": {empty_reason: empty, **skipped},
    }
    write_json(stats, result)
    LOG.info("%s: %d documents, %d sentences", sentences, result["documents"], result["sentences"])
    return result


def split_sentences(
    documents: str | os.PathLike,
    keep: str | os.PathLike,
    sentences: str | os.PathLike,
    stats: str | os.PathLike,
    *,
    include_title: bool = True,
    splitter: str = "rules",
    model: str | None = None,
    pmids: str | os.PathLike | None = None,
) -> dict:
    """Write the sentences of the latest citations of one file, and their statistics.

    ``sentences`` gets one sentence a line and a blank line after each document;
    citations without an abstract are skipped. ``stats`` gets ``documents``,
    ``sentences``, ``words`` (whitespace-separated), ``characters`` (of the sentences),
    ``per_year`` and ``skipped`` (``no_abstract``; ``not_latest``: superseded by a newer
    version or deleted); ``pmids``, when given, each document's PMID (``write_documents``).
    Returns the statistics.
    """
    citations, not_latest = latest_citations(documents, keep)
    items = (
        (
            citation["title"] if include_title else "",
            citation["abstract"],
            citation["year"],
            citation["pmid"],
        )
        for citation in citations
    )
    return write_documents(
        items,
        build_splitter(splitter, model),
        sentences,
        stats,
        skipped={"not_latest": not_latest},
        empty_reason="no_abstract",
        pmids=pmids,
    )


def split_pmc_sentences(
    documents: str | os.PathLike,
    sentences: str | os.PathLike,
    stats: str | os.PathLike,
    *,
    pubmed_pmids: str | os.PathLike | None = None,
    include_title: bool = True,
    splitter: str = "rules",
    model: str | None = None,
    pmids: str | os.PathLike | None = None,
) -> dict:
    """Write the sentences of the parsed PMC articles of one file, and their statistics.

    A document is the title, the abstract and the body paragraphs. With ``pubmed_pmids``
    (the sorted ``.npy`` of :func:`biocompact.corpus.updates.write_keep_lists`), an article
    whose PMID is in the PubMed corpus keeps only its body: its title and abstract are
    already there (counted as ``skipped["abstract_in_pubmed"]``). Articles are streamed;
    ``pmids``, when given, gets each document's PMID (``write_documents``).
    """
    in_pubmed = np.load(pubmed_pmids) if pubmed_pmids is not None else np.array([], np.int64)
    duplicates = {"abstract_in_pubmed": 0}

    def items() -> Iterator[tuple[str, str, int | None, str]]:
        for article in read_citations(documents):
            pmid = int(article["pmid"]) if article["pmid"].isdigit() else -1
            position = np.searchsorted(in_pubmed, pmid)
            if position < len(in_pubmed) and in_pubmed[position] == pmid:
                duplicates["abstract_in_pubmed"] += 1
                yield "", article["body"], article["year"], article["pmid"]
            else:
                text = "\n".join(filter(None, (article["abstract"], article["body"])))
                title = article["title"] if include_title else ""
                yield title, text, article["year"], article["pmid"]

    return write_documents(
        items(),
        build_splitter(splitter, model),
        sentences,
        stats,
        skipped=duplicates,
        empty_reason="no_text",
        pmids=pmids,
    )
