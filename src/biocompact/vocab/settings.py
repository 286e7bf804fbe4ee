"""One entry of the config's ``vocabularies`` section, parsed once into checked settings,
and the settings of the stage's rules that hold it (``VocabularyTraining``) or the
tokenised corpus's (``CorpusTokenization``); the config's ``pretraining_data`` section
(``PretrainingData``, its one description; the workflow passes its values to the rules).

The rule passes the whole entry (``params.settings``). The class is the entry's one
description: the config schema is generated from its fields, defaults, constraints and
docstrings. A new option is a field here and the code that reads it (a trainer option: the
builders of ``biocompact.vocab.train``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Annotated, Any, Literal, get_args

from pydantic import Field

from biocompact.entries import ENTRY
from biocompact.schema_fields import UNIQUE_ITEMS

# Fields that are not options of the trainer: what is trained, on what, compared with what
NOT_TRAINER_OPTIONS = ("type", "sample_fraction", "reference", "checkpoint")
# The type that trains nothing: a checkpoint's own tokenizer, kept for continued pretraining
PRETRAINED = "pretrained"
# How the tokenised corpus packs sentences into sequences (biocompact.vocab.tokenized_corpus)
Packing = Literal["document", "full", "best_fit"]
PACKINGS = get_args(Packing)


@dataclass(frozen=True)
class VocabularySettings:
    """How one vocabulary is trained and measured."""

    __pydantic_config__ = ENTRY
    SECTION = "vocabularies"

    # the builders of biocompact.vocab.train (which loads tokenizers: not imported here), and
    # PRETRAINED; a test keeps them equal
    type: Literal["wordpiece", "bpe", "unigram", "modernbert", "pretrained"]
    """wordpiece (BERT), bpe (RoBERTa's byte-level BPE, Lewis et al. 2020), unigram (ALBERT's
    SentencePiece-style unigram, Alrowili and Shanker 2021), modernbert (ModernBERT's
    byte-level BPE with [CLS]/[SEP]/[MASK]/[PAD]/[UNK], no token types, Warner et al. 2024),
    pretrained (the tokenizer of `checkpoint`, unchanged: for continued pretraining; the
    training settings below are ignored)"""
    checkpoint: str | None = None
    """type pretrained: the model whose tokenizer this is (folder, hub name or
    python-package:NAME/PATH)"""
    vocab_size: Annotated[int, Field(ge=10)] = 32768
    lowercase: bool = True
    min_frequency: Annotated[int, Field(ge=0)] = 2
    limit_alphabet: Annotated[int, Field(ge=1)] = 1000
    sample_fraction: Annotated[float, Field(gt=0, le=1)] = 1.0
    """share of training documents the vocabulary is trained on (a stable hash sample)"""
    extra_special_tokens: Annotated[
        tuple[Annotated[str, Field(min_length=1)], ...],
        UNIQUE_ITEMS,
    ] = ()
    """tokens kept whole after BERT's five, e.g. ["@GENE$", "@DISEASE$"]"""
    reference: str | None = None
    """tokenizer to compare with (folder, hub name or python-package:NAME/PATH)"""

    def __post_init__(self) -> None:
        if (self.type == PRETRAINED) != bool(self.checkpoint):
            raise ValueError(
                "a vocabulary of type 'pretrained' needs `checkpoint` (the model whose tokenizer "
                "it is), and only that type takes one"
            )

    def trainer_options(self) -> dict[str, Any]:
        """The keyword arguments of the type's builder."""
        return {
            field.name: getattr(self, field.name)
            for field in fields(self)
            if field.name not in NOT_TRAINER_OPTIONS
        }


@dataclass(frozen=True)
class VocabularyTraining:
    """One vocabulary to train and measure (rule train_vocabulary)."""

    name: str  # its name in the config's `vocabularies`
    settings: VocabularySettings  # its entry there
    heldout_fraction: float  # share of the documents held out (the statistics read them)
    max_heldout_sentences: int  # held-out sentences measured, at most


@dataclass(frozen=True)
class PretrainingData:
    """how the pretraining text becomes sequences, and the share of documents held out"""

    __pydantic_config__ = ENTRY
    SECTION = "pretraining_data"

    max_seq_length: Annotated[int, Field(ge=8, le=4096)] = 128
    heldout_fraction: Annotated[float, Field(ge=0, lt=1)] = 0.01
    max_heldout_sentences: Annotated[int, Field(ge=1)] = 20000
    packing: Packing = "best_fit"
    """document: BERT's document-aware packing, one document a sequence (its last sequence
    short; about 76% of positions hold tokens at 128); full: RoBERTa's FULL-SENTENCES,
    sentences of consecutive documents fill every sequence ([SEP] [CLS] between documents,
    cut only between words; over 99% of positions hold tokens); best_fit: document's
    sequences, whole, several to a sequence by best-fit decreasing (about 88% of positions
    hold tokens at 128; the default: on the demo it gave a lower held-out loss than document
    at every one of 3 seeds at equal steps). With full and best_fit each document of a
    sequence attends only to itself, its positions restarting at 0 (docs/speed.md)"""


@dataclass(frozen=True)
class CorpusTokenization:
    """How the sentence shards become pretraining sequences (rule tokenize_corpus); the
    tokenised corpus's record holds these settings (``records.tokenized_corpus``)."""

    max_seq_length: int  # tokens per sequence
    heldout_fraction: float  # share of the documents held out (the validation split)
    packing: str  # document, full or best_fit
