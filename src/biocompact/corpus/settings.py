"""The config's ``corpus`` section (``CorpusSettings``, its one description: the config schema
is generated from it; the workflow reads the validated mappings) and the settings of the
corpus stage's rules, one frozen dataclass per rule's params (a rule script parses them with
``biocompact.entries.parse_entry``); PMC parsing takes ``corpus.pmc.PmcOptions``. No torch,
like the rest of the stage."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Literal, get_args

from pydantic import Field

from biocompact.entries import ENTRY
from biocompact.schema_fields import UNIQUE_ITEMS, no_schema_default, one_of
from biocompact.taskfiles.settings import FinetuningTask

# A file or source name: a path's last part, no separator
NAME_PATTERN = "^[A-Za-z0-9_.-]+$"
FileName = Annotated[str, Field(pattern=NAME_PATTERN)]
Splitter = Literal["rules", "scispacy"]
SPLITTERS = get_args(Splitter)
TextFormat = Literal["lines", "jsonl", "document"]
TEXT_FORMATS = get_args(TextFormat)


@dataclass(frozen=True)
class PubmedFileRange:
    """the files `prefix` followed by each number from `first` to `last`, zero-padded"""

    __pydantic_config__ = ENTRY

    prefix: FileName
    first: Annotated[int, Field(ge=0)]
    last: Annotated[int, Field(ge=0)]
    # not filled in by the schema (as the listing reads it): Snakemake's validate, which sets
    # defaults, would set one inside the oneOf's other options too (a list)
    digits: Annotated[int, Field(ge=1, json_schema_extra=no_schema_default)] = 4
    """zero-padded width, 4 when left out"""


# Which PubMed files (biocompact.corpus.listing): names, a range, or every file listed
PubmedFiles = Annotated[
    tuple[FileName, ...] | PubmedFileRange | Literal["all"], Field(json_schema_extra=one_of)
]


@dataclass(frozen=True)
class PubmedSettings:
    """PubMed baseline and update files (off when `baseline` is empty)"""

    __pydantic_config__ = ENTRY

    source: str = "https://ftp.ncbi.nlm.nih.gov/pubmed"
    """base URL or folder with baseline/ and updatefiles/"""
    baseline: PubmedFiles = ()
    """NCBI order; empty: no PubMed"""
    updates: PubmedFiles = ()
    """file names without .xml.gz; a range {prefix, first, last} (4-digit numbers); or all:
    NCBI's directory listing, cached in results/corpus/pubmed/listing/"""
    verify_md5: bool = True


@dataclass(frozen=True)
class PmcSettings:
    """PMC Open Access full text (off when `files` is empty)"""

    __pydantic_config__ = ENTRY

    source: str = "https://ftp.ncbi.nlm.nih.gov/pub/pmc/oa_bulk/oa_comm/xml"
    """base URL or folder of the files"""
    files: Annotated[
        tuple[Annotated[str, Field(pattern=r"^[A-Za-z0-9_.-]+\.(tar\.gz|tgz|nxml|xml)$")], ...],
        UNIQUE_ITEMS,
    ] = ()
    """bulk packages (.tar.gz of JATS articles) or single articles (.nxml/.xml) under source"""
    verify_md5: bool = False
    """check each file against {file}.md5 (NCBI's MD5(name)= form)"""
    sample_fraction: Annotated[float, Field(gt=0, le=1)] = 1.0
    """stable hash sample of articles by PMCID (Bioformer: 1M articles)"""
    seed: int = 0
    """seed of the sample"""
    captions: bool = False
    """keep figure and table captions"""
    tables: bool = False
    """keep table rows and table footnotes"""
    references: bool = False
    """keep citation markers and the reference list"""
    dedupe_pubmed: bool = True
    """drop title and abstract of articles whose PMID is in the PubMed corpus"""


@dataclass(frozen=True)
class TextSource:
    """one local text source: its files and how a document is laid out in them"""

    __pydantic_config__ = ENTRY

    files: Annotated[tuple[Annotated[str, Field(min_length=1)], ...], Field(min_length=1)]
    """paths or glob patterns (matches taken in sorted order); a .gz file is read as gzip"""
    format: TextFormat = "lines"
    """lines: one document a line; jsonl: one JSON object a line, its text in text_field;
    document: a whole file is one document"""
    text_field: Annotated[str, Field(min_length=1)] = "text"
    """jsonl: the field that holds the text"""


@dataclass(frozen=True)
class TextSettings:
    """local text files, your own corpus (e.g. clinical notes), beside PubMed and PMC; off
    when `sources` is empty"""

    __pydantic_config__ = ENTRY

    sources: Annotated[
        dict[str, TextSource],
        Field(json_schema_extra={"propertyNames": {"pattern": NAME_PATTERN}}),
    ] = field(default_factory=dict)
    """name -> its files; each source becomes one sentence shard,
    results/corpus/sentences/text/{name}.txt.gz"""


@dataclass(frozen=True)
class ParseSettings:
    """what is kept of a PubMed citation"""

    __pydantic_config__ = ENTRY

    section_labels: bool = False
    include_title: bool = True
    other_abstract: bool = False
    """a citation without an Abstract takes the text of its English OtherAbstract (e.g. a
    publisher's or plain-language abstract); false: it counts as no_abstract"""


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
    """how documents are cut into sentences"""

    __pydantic_config__ = ENTRY

    splitter: Splitter = "rules"
    """rules: biocompact's biomedical splitter; scispacy: scispaCy tokenizer + pySBD (or
    `model`)"""
    model: str | None = None
    """a scispaCy model (e.g. en_core_sci_sm) for splitter scispacy"""


@dataclass(frozen=True)
class CorpusSettings:
    """the pretraining text: PubMed, PMC and local text files, how they are parsed and split
    into sentences"""

    __pydantic_config__ = ENTRY
    SECTION = "corpus"

    pubmed: PubmedSettings = PubmedSettings()
    pmc: PmcSettings = PmcSettings()
    text: TextSettings = TextSettings()
    parse: ParseSettings = ParseSettings()
    sentences: SentenceSplitter = SentenceSplitter()


@dataclass(frozen=True, kw_only=True)
class ArticleSplitting(SentenceSplitter):
    """How PubMed citations and PMC articles become sentences (rules corpus_split_sentences
    and corpus_split_pmc)."""

    include_title: bool  # the title is the document's first sentence


@dataclass(frozen=True, kw_only=True)
class TextSourceSplitting(SentenceSplitter):
    """How one local text source is read and split into sentences (rule corpus_split_text)."""

    format: str  # lines, jsonl or document
    text_field: str  # jsonl: the field that holds the text


@dataclass(frozen=True)
class EvaluationText:
    """The dev and test text indexed for decontamination (rule corpus_evaluation_text)."""

    tasks: tuple[FinetuningTask, ...]  # the checked tasks (their data alone)
    ngram: int  # words per n-gram


@dataclass(frozen=True)
class CorpusFiles:
    """The names of the corpus's files, in the order of the rule's inputs (rule
    corpus_stats)."""

    stems: tuple[str, ...]  # PubMed files
    pmc_files: tuple[str, ...]  # PMC files
    text_sources: tuple[str, ...]  # local text sources
