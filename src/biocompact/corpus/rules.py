"""Rule entry points of the corpus stage: one function per rule of
workflow/rules/corpus.smk, named after the rule."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from typing import TypedDict

from biocompact.corpus.decontamination import (
    EvaluationIndex,
    build_evaluation_index,
    contamination_summary,
    decontaminate_shard,
)
from biocompact.corpus.download import (
    download_file,
    download_pubmed_file,
    evict_if_unreadable,
    source_url,
)
from biocompact.corpus.local_text import split_local_text
from biocompact.corpus.pmc import PmcOptions, parse_pmc
from biocompact.corpus.pubmed import parse_pubmed
from biocompact.corpus.sentences import split_pmc_sentences, split_sentences
from biocompact.corpus.settings import (
    ArticleSplitting,
    CorpusFiles,
    EvaluationText,
    PmcDownload,
    PubmedDownload,
    PubmedParsing,
    TextSourceSplitting,
)
from biocompact.corpus.stats import sum_corpus_stats
from biocompact.corpus.updates import write_keep_lists
from biocompact.files.atomic import write_json
from biocompact.files.rule_files import optional_file
from biocompact.records.base import record_data
from biocompact.records.contamination import ShardMatches
from biocompact.records.corpus_statistics import CorpusStatistics

LOG = logging.getLogger(__name__)


def corpus_download_pubmed(download: PubmedDownload, *, outputs: Mapping[str, str]) -> str:
    """PubMed file ``download.stem`` of NCBI's ``download.folder`` under ``download.source``
    to ``outputs["raw"]``."""
    return download_pubmed_file(
        download.source,
        download.folder,
        download.stem,
        outputs["raw"],
        verify_md5=download.verify_md5,
    )


def corpus_parse_pubmed(
    parsing: PubmedParsing, *, inputs: Mapping[str, str], outputs: Mapping[str, str]
) -> dict:
    """``parse_pubmed`` of ``inputs["raw"]`` as ``parsing`` says (a file that cannot be read
    is evicted from the download cache)."""
    with evict_if_unreadable(inputs["raw"]):
        summary = parse_pubmed(
            inputs["raw"],
            outputs["documents"],
            outputs["meta"],
            section_labels=parsing.section_labels,
            other_abstract=parsing.other_abstract,
        )
    LOG.info(
        "%s: %d records, %d deletions",
        summary["file"],
        summary["records"],
        len(summary["deleted_pmids"]),
    )
    return summary


class LatestPubmedOutputs(TypedDict):
    """The named outputs of rule corpus_latest_pubmed."""

    keep: Sequence[str]  # one keep list per PubMed file
    pmids: str


def corpus_latest_pubmed(
    *, inputs: Mapping[str, Sequence[str]], outputs: LatestPubmedOutputs
) -> None:
    """The keep lists and the PMIDs of every parsed PubMed file."""
    write_keep_lists(inputs["documents"], inputs["metas"], outputs["keep"], outputs["pmids"])


def corpus_split_sentences(
    splitting: ArticleSplitting, *, inputs: Mapping[str, str], outputs: Mapping[str, str]
) -> dict:
    """``split_sentences`` of one PubMed file's latest citations as ``splitting`` says."""
    return split_sentences(
        inputs["documents"],
        inputs["keep"],
        outputs["sentences"],
        outputs["stats"],
        pmids=outputs.get("pmids"),
        include_title=splitting.include_title,
        splitter=splitting.splitter,
        model=splitting.model,
    )


def corpus_download_pmc(download: PmcDownload, *, outputs: Mapping[str, str]) -> str:
    """PMC file ``download.pmc_file`` under ``download.source`` to ``outputs["raw"]``."""
    return download_file(
        source_url(download.source, download.pmc_file),
        outputs["raw"],
        verify_md5=download.verify_md5,
    )


def corpus_parse_pmc(
    options: PmcOptions, *, inputs: Mapping[str, str], outputs: Mapping[str, str]
) -> dict:
    """``parse_pmc`` of ``inputs["raw"]`` with ``options`` (a file that cannot be read is
    evicted from the download cache)."""
    with evict_if_unreadable(inputs["raw"]):
        summary = parse_pmc(inputs["raw"], outputs["documents"], outputs["meta"], options)
    LOG.info(
        "%s: %d articles, %d documents, skipped %s",
        summary["file"],
        summary["records"],
        summary["documents"],
        summary["skipped"],
    )
    return summary


def corpus_split_pmc(
    splitting: ArticleSplitting, *, inputs: Mapping[str, str], outputs: Mapping[str, str]
) -> dict:
    """``split_pmc_sentences`` of one PMC file's articles as ``splitting`` says, without
    those of ``inputs["pubmed_pmids"]`` where the rule has it."""
    return split_pmc_sentences(
        inputs["documents"],
        outputs["sentences"],
        outputs["stats"],
        pubmed_pmids=inputs.get("pubmed_pmids"),
        pmids=outputs.get("pmids"),
        include_title=splitting.include_title,
        splitter=splitting.splitter,
        model=splitting.model,
    )


def corpus_split_text(
    splitting: TextSourceSplitting,
    *,
    inputs: Mapping[str, Sequence[str]],
    outputs: Mapping[str, str],
) -> dict:
    """``split_local_text`` of one source's ``inputs["files"]`` as ``splitting`` says."""
    return split_local_text(
        inputs["files"],
        outputs["sentences"],
        outputs["stats"],
        format=splitting.format,
        text_field=splitting.text_field,
        splitter=splitting.splitter,
        model=splitting.model,
    )


def corpus_evaluation_text(evaluation: EvaluationText, *, outputs: Mapping[str, str]) -> None:
    """The index of the dev and test text of ``evaluation.tasks`` (task entries) in n-grams
    of ``evaluation.ngram`` words."""
    build_evaluation_index(evaluation.tasks, evaluation.ngram, outputs["index"])


class DecontaminationInputs(TypedDict):
    """The named inputs of rule corpus_decontaminate."""

    sentences: str
    pmids: str | Sequence[str]  # [] for a local text shard
    index: str


def corpus_decontaminate(
    *, inputs: DecontaminationInputs, outputs: Mapping[str, str]
) -> ShardMatches:
    """``decontaminate_shard`` of one sentence shard (with its ``pmids`` where the rule has
    them) against the evaluation ``index``."""
    return decontaminate_shard(
        EvaluationIndex.load(inputs["index"]),
        inputs["sentences"],
        outputs["sentences"],
        outputs["matches"],
        optional_file(inputs.get("pmids")),  # a local text shard has no PMIDs
    )


class ContaminationInputs(TypedDict):
    """The named inputs of rule corpus_contamination."""

    index: str
    matches: Sequence[str]  # every shard's


def corpus_contamination(*, inputs: ContaminationInputs, outputs: Mapping[str, str]) -> None:
    """``contamination_summary`` of every shard's matches."""
    records = [ShardMatches.read(path) for path in inputs["matches"]]
    summary = contamination_summary(EvaluationIndex.load(inputs["index"]), records)
    write_json(outputs["contamination"], record_data(summary))


def corpus_stats(
    files: CorpusFiles,
    *,
    inputs: Mapping[str, Sequence[str | os.PathLike]],
    outputs: Mapping[str, str | os.PathLike],
) -> CorpusStatistics:
    """``sum_corpus_stats`` of the rule's named inputs (stats, metas and their pmc_ and text_
    counterparts) over the names of ``files`` into ``outputs["stats"]``."""
    return sum_corpus_stats(
        inputs["stats"],
        inputs["metas"],
        files.stems,
        outputs["stats"],
        pmc_stats=inputs["pmc_stats"],
        pmc_metas=inputs["pmc_metas"],
        pmc_files=files.pmc_files,
        text_stats=inputs["text_stats"],
        text_sources=files.text_sources,
    )
