"""Split the latest PubMed citations into sentences: the pretraining text format.

A document is its title (one sentence of its own, when ``include_title``) followed by the
sentences of its abstract. The abstract is split on its section lines first and any
overlong section is cut at a space into pieces of at most ``max_chars`` characters, so a
pathological record cannot stall the segmenter or exceed spaCy's ``max_length``.
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

from biocompact.atomic import atomic_open, write_json
from biocompact.corpus.pubmed import read_citations
from biocompact.corpus.updates import read_keep_list

if TYPE_CHECKING:
    from spacy.language import Language

LOG = logging.getLogger(__name__)

SPLITTERS = ("scispacy",)
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


class ScispacySplitter:
    """scispaCy's rule-based tokenizer with pySBD sentences, or a scispaCy model's parser."""

    def __init__(
        self, model: str | None = None, batch_size: int = 64, max_chars: int = MAX_CHARS
    ) -> None:
        with _torch_hidden(), warnings.catch_warnings():
            # scispaCy's suffix pattern trips a harmless regex FutureWarning in every job log.
            warnings.filterwarnings("ignore", "Possible set union", FutureWarning)
            import spacy
            from scispacy.custom_sentence_segmenter import pysbd_sentencizer  # noqa: F401
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


def build_splitter(splitter: str = "scispacy", model: str | None = None) -> ScispacySplitter:
    """The sentence splitter named in ``config["corpus"]["sentences"]``."""
    if splitter not in SPLITTERS:
        raise ValueError(f"unknown sentence splitter {splitter!r}; choose from {SPLITTERS}")
    return ScispacySplitter(model)


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


def split_sentences(
    documents: str | os.PathLike,
    keep: str | os.PathLike,
    sentences: str | os.PathLike,
    stats: str | os.PathLike,
    include_title: bool = True,
    splitter: str = "scispacy",
    model: str | None = None,
) -> dict:
    """Write the sentences of the latest citations of one file, and their statistics.

    ``sentences`` gets one sentence a line and a blank line after each document;
    citations without an abstract are skipped. ``stats`` gets ``documents``,
    ``sentences``, ``words`` (whitespace-separated), ``characters`` (of the sentences),
    ``per_year`` and ``skipped`` (``no_abstract``; ``not_latest``: superseded by a newer
    version or deleted). Returns the statistics.
    """
    citations, not_latest = latest_citations(documents, keep)
    totals: Counter[str] = Counter()
    per_year: Counter[str] = Counter()
    skipped = {"no_abstract": 0, "not_latest": not_latest}
    segmenter = build_splitter(splitter, model)
    with atomic_open(sentences) as out:
        abstracts = (citation["abstract"] for citation in citations)
        for citation, body in zip(citations, segmenter.split(abstracts)):
            if not body:
                skipped["no_abstract"] += 1
                continue
            title = " ".join(citation["title"].split()) if include_title else ""
            lines = [title, *body] if title else body
            out.write("\n".join(lines) + "\n\n")
            totals.update(
                documents=1,
                sentences=len(lines),
                words=sum(len(line.split()) for line in lines),
                characters=sum(len(line) for line in lines),
            )
            per_year[str(citation["year"]) if citation["year"] is not None else "unknown"] += 1
    result = {
        "documents": totals["documents"],
        "sentences": totals["sentences"],
        "words": totals["words"],
        "characters": totals["characters"],
        "per_year": dict(sorted(per_year.items())),
        "skipped": skipped,
    }
    write_json(stats, result)
    LOG.info("%s: %d documents, %d sentences", sentences, result["documents"], result["sentences"])
    return result
