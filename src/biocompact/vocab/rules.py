"""Rule entry points of the vocab stage: one function per rule of workflow/rules/vocab.smk,
named after the rule."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import datasets

from biocompact.files.atomic import write_json
from biocompact.vocab.build import build_vocabulary
from biocompact.vocab.settings import VocabularySettings
from biocompact.vocab.tokenized_corpus import RECORD_SETTINGS, build_tokenized_corpus


def train_vocabulary(
    settings: Mapping[str, Any], *, inputs: Mapping[str, Any], outputs: Mapping[str, Any]
) -> dict:
    """Vocabulary ``settings["name"]`` of config entry ``settings["settings"]`` from
    ``inputs["shards"]``, held out as ``settings`` say (heldout_fraction,
    max_heldout_sentences)."""
    return build_vocabulary(
        shards=inputs["shards"],
        out_tokenizer=outputs["tokenizer"],
        out_stats=outputs["stats"],
        name=settings["name"],
        settings=VocabularySettings.from_entry(settings["settings"]),
        heldout_fraction=settings["heldout_fraction"],
        max_heldout_sentences=settings["max_heldout_sentences"],
    )


def tokenize_corpus(
    settings: Mapping[str, Any],
    *,
    inputs: Mapping[str, Any],
    outputs: Mapping[str, Any],
    threads: int,
) -> datasets.DatasetDict:
    """``build_tokenized_corpus`` of ``inputs["shards"]`` with ``inputs["tokenizer"]`` into
    ``outputs["corpus"]`` in ``threads`` processes, as ``settings`` say (max_seq_length,
    heldout_fraction, packing); its record (those settings and the sequences of each split)
    to ``outputs["record"]``."""
    corpus = build_tokenized_corpus(
        shards=inputs["shards"],
        tokenizer_dir=inputs["tokenizer"],
        out_dir=outputs["corpus"],
        max_seq_length=settings["max_seq_length"],
        heldout_fraction=settings["heldout_fraction"],
        num_proc=threads,
        packing=settings["packing"],
    )
    write_json(
        outputs["record"],
        {
            **{key: settings[key] for key in RECORD_SETTINGS},
            "sequences": {name: split.num_rows for name, split in corpus.items()},
        },
    )
    return corpus
