"""The settings of the corpus stage's rules, one frozen dataclass per rule's params (a rule
script parses them with ``biocompact.entries.parse_entry``); PMC parsing takes
``corpus.pmc.PmcOptions``. No torch, like the rest of the stage."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class PubmedDownload:
    """One PubMed file to download (rule corpus_download_pubmed)."""

    source: str  # URL or local folder in NCBI's layout
    folder: str  # baseline or updatefiles
    stem: str  # the file's name without .xml.gz
    verify_md5: bool  # check the file against its .md5 sidecar


@dataclass(frozen=True)
class PubmedParsing:
    """What to keep of a PubMed citation's abstract (rule corpus_parse_pubmed)."""

    section_labels: bool  # write a structured abstract's sections as `LABEL: text`
    other_abstract: bool  # use an OtherAbstract where the citation has no Abstract


@dataclass(frozen=True)
class PmcDownload:
    """One PMC Open Access file to download (rule corpus_download_pmc)."""

    source: str  # URL or local folder
    pmc_file: str  # bulk package or article, relative to `source`
    verify_md5: bool  # check the file against its .md5 sidecar


@dataclass(frozen=True)
class SentenceSplitter:
    """The config's ``corpus.sentences``: which splitter cuts documents into sentences."""

    splitter: str  # rules or scispacy
    model: str | None  # scispacy: the installed scispaCy model whose parser splits; None: pySBD


@dataclass(frozen=True)
class ArticleSplitting(SentenceSplitter):
    """How PubMed citations and PMC articles become sentences (rules corpus_split_sentences
    and corpus_split_pmc)."""

    include_title: bool  # the title is the document's first sentence


@dataclass(frozen=True)
class TextSourceSplitting(SentenceSplitter):
    """How one local text source is read and split into sentences (rule corpus_split_text)."""

    format: str  # lines, jsonl or document
    text_field: str  # jsonl: the field that holds the text


@dataclass(frozen=True)
class EvaluationText:
    """The dev and test text indexed for decontamination (rule corpus_evaluation_text)."""

    tasks: tuple[dict[str, Any], ...]  # the entries (data alone) of the checked tasks
    ngram: int  # words per n-gram


@dataclass(frozen=True)
class CorpusFiles:
    """The names of the corpus's files, in the order of the rule's inputs (rule
    corpus_stats)."""

    stems: tuple[str, ...]  # PubMed files
    pmc_files: tuple[str, ...]  # PMC files
    text_sources: tuple[str, ...]  # local text sources
