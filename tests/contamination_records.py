"""contamination.json records made by hand for the tests of their readers (the report, the
model cards): a one-shard corpus and its checked splits."""

from __future__ import annotations

from collections.abc import Sequence

from biocompact.records.contamination import (
    CheckedSplit,
    ContaminationRecord,
    CorpusTotals,
    DocumentCounts,
    Matches,
    ShardTotals,
    SplitContamination,
)


def checked_split(
    task: str,
    split: str,
    *,
    examples: int,
    unchecked: int | None,
    pmid: tuple[int, int, int] = (0, 0, 0),
    ngram: tuple[int, int, int] = (0, 0, 0),
    removed: int = 0,
) -> SplitContamination:
    """Split ``split`` of ``task`` with its ``examples``, those ``unchecked`` (None: an
    older record's, without the count), the (documents, sentences, examples) matched by
    ``pmid`` and by ``ngram``, and the documents ``removed``."""
    return SplitContamination(
        checked=CheckedSplit(
            task=task,
            split=split,
            family="ner",
            files=[f"{task}/{split}.tsv"],
            examples=examples,
            examples_under_ngram=unchecked or 0,
            examples_with_pmid=0,
            examples_unchecked=unchecked,
        ),
        pmid=Matches(documents=pmid[0], sentences=pmid[1], examples=pmid[2]),
        ngram=Matches(documents=ngram[0], sentences=ngram[1], examples=ngram[2]),
        documents_removed=removed,
    )


def contamination_record(
    tasks: Sequence[str],
    *,
    documents: int,
    removed: int,
    splits: Sequence[SplitContamination] = (),
) -> ContaminationRecord:
    """The record of a one-shard corpus of ``documents`` documents (a sentence each) checked
    against ``tasks`` with 13-grams, ``removed`` of them for an n-gram."""
    counts = DocumentCounts(
        documents=documents,
        sentences=documents,
        documents_removed=removed,
        sentences_removed=removed,
        documents_matched_by_pmid=0,
        documents_matched_by_ngram=removed,
    )
    shards = [ShardTotals(shard="results/corpus/sentences/shard.txt.gz", counts=counts)]
    return ContaminationRecord(
        ngram=13,
        tasks=list(tasks),
        corpus=CorpusTotals.of(shards),
        splits=list(splits),
        shards=shards,
    )
