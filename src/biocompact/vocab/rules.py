"""Rule entry points of the vocab stage: one function per rule of workflow/rules/vocab.smk,
named after the rule."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TypedDict

import datasets

from biocompact.files.atomic import write_json
from biocompact.records.base import record_data
from biocompact.records.tokenized_corpus import TokenizedCorpusRecord
from biocompact.records.vocabulary import VocabularyStatistics
from biocompact.vocab.build import build_vocabulary
from biocompact.vocab.disk import check_free_space
from biocompact.vocab.settings import CorpusTokenization, VocabularyTraining
from biocompact.vocab.tokenized_corpus import build_tokenized_corpus


def train_vocabulary(
    training: VocabularyTraining,
    *,
    inputs: Mapping[str, Sequence[str]],
    outputs: Mapping[str, str],
    threads: int,
) -> VocabularyStatistics:
    """Vocabulary ``training.name`` from ``inputs["shards"]``, held out as ``training``
    says, on ``threads`` threads: the job's process has not started tokenizers' Rust thread
    pool yet, which reads ``RAYON_NUM_THREADS`` when it starts (else it takes every core)."""
    os.environ["RAYON_NUM_THREADS"] = str(threads)
    return build_vocabulary(
        shards=inputs["shards"],
        out_tokenizer=outputs["tokenizer"],
        out_stats=outputs["stats"],
        name=training.name,
        settings=training.settings,
        heldout_fraction=training.heldout_fraction,
        max_heldout_sentences=training.max_heldout_sentences,
    )


class TokenizationInputs(TypedDict):
    """The named inputs of rule tokenize_corpus."""

    shards: Sequence[str]
    tokenizer: str


def tokenize_corpus(
    tokenization: CorpusTokenization,
    *,
    inputs: TokenizationInputs,
    outputs: Mapping[str, str],
    threads: int,
    disk_mb: int,
    tmpdir: str,
) -> datasets.DatasetDict:
    """``build_tokenized_corpus`` of ``inputs["shards"]`` with ``inputs["tokenizer"]`` into
    ``outputs["corpus"]`` in ``threads`` processes, its scratch in ``tmpdir``, as
    ``tokenization`` says, once the ``disk_mb`` it declares is free; its record (those
    settings and the sequences of each split) to ``outputs["record"]``."""
    check_free_space(disk_mb, Path(tmpdir), Path(outputs["corpus"]).parent)
    corpus = build_tokenized_corpus(
        shards=inputs["shards"],
        tokenizer_dir=inputs["tokenizer"],
        out_dir=outputs["corpus"],
        max_seq_length=tokenization.max_seq_length,
        heldout_fraction=tokenization.heldout_fraction,
        num_proc=threads,
        packing=tokenization.packing,
        scratch_dir=tmpdir,
    )
    record = TokenizedCorpusRecord(
        **asdict(tokenization),
        sequences={name: split.num_rows for name, split in corpus.items()},
    )
    write_json(outputs["record"], record_data(record))
    return corpus
