"""One entry of the config's ``vocabularies`` section, parsed once into checked settings,
and the settings of the stage's rules that hold it (``VocabularyTraining``) or the
tokenised corpus's (``CorpusTokenization``).

The rule passes the whole entry (``params.settings``); the schema documents every field
and fills in its default. A new option is a schema property, a field here and the code
that reads it (a trainer option: the builders of ``biocompact.vocab.train``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from biocompact.entries import check_entry, parse_entry

# Fields that are not options of the trainer: what is trained, on what, compared with what
NOT_TRAINER_OPTIONS = ("type", "sample_fraction", "reference", "checkpoint")
# The type that trains nothing: a checkpoint's own tokenizer, kept for continued pretraining
PRETRAINED = "pretrained"


@dataclass(frozen=True)
class VocabularySettings:
    """How one vocabulary is trained and measured."""

    type: str  # wordpiece, bpe, unigram, modernbert, or pretrained (the tokenizer of `checkpoint`)
    vocab_size: int = 32768
    lowercase: bool = True
    min_frequency: int = 2
    limit_alphabet: int = 1000
    sample_fraction: float = 1.0  # share of training documents trained on (a stable hash sample)
    extra_special_tokens: tuple[str, ...] = ()  # kept whole after BERT's five
    reference: str | None = None  # tokenizer to compare with
    checkpoint: str | None = None  # type pretrained: the model whose tokenizer this is

    def __post_init__(self) -> None:
        # imported here: the trainers load tokenizers and transformers (0.75 CPU-s), which the
        # workflow, importing this module for PRETRAINED on every snakemake start, never uses
        from biocompact.vocab.train import BUILDERS

        if self.type not in (*BUILDERS, PRETRAINED):
            known = sorted((*BUILDERS, PRETRAINED))
            raise ValueError(f"unknown vocabulary type {self.type!r}; known: {known}")
        if (self.type == PRETRAINED) != bool(self.checkpoint):
            raise ValueError(
                "a vocabulary of type 'pretrained' needs `checkpoint` (the model whose tokenizer "
                "it is), and only that type takes one"
            )
        if not 0 < self.sample_fraction <= 1:
            raise ValueError(f"sample_fraction must be in (0, 1], not {self.sample_fraction}")

    def trainer_options(self) -> dict[str, Any]:
        """The keyword arguments of the type's builder."""
        return {
            field.name: getattr(self, field.name)
            for field in fields(self)
            if field.name not in NOT_TRAINER_OPTIONS
        }

    @classmethod
    def from_entry(cls, entry: Mapping[str, Any]) -> VocabularySettings:
        """Parse and check one ``vocabularies`` entry (as validated by the schema)."""
        check_entry("vocabularies", entry, cls)
        special = tuple(entry.get("extra_special_tokens", ()))
        return cls(**{**entry, "extra_special_tokens": special})


@dataclass(frozen=True)
class VocabularyTraining:
    """One vocabulary to train and measure (rule train_vocabulary)."""

    name: str  # its name in the config's `vocabularies`
    settings: VocabularySettings  # its entry there
    heldout_fraction: float  # share of the documents held out (the statistics read them)
    max_heldout_sentences: int  # held-out sentences measured, at most

    @classmethod
    def from_entry(cls, entry: Mapping[str, Any], where: str) -> VocabularyTraining:
        """Parse the rule's params, ``settings`` a ``vocabularies`` entry
        (``VocabularySettings.from_entry``); errors name ``where``."""
        return parse_entry(
            cls, {**entry, "settings": VocabularySettings.from_entry(entry["settings"])}, where
        )


@dataclass(frozen=True)
class CorpusTokenization:
    """How the sentence shards become pretraining sequences (rule tokenize_corpus); the
    tokenised corpus's record holds these settings (``records.tokenized_corpus``)."""

    max_seq_length: int  # tokens per sequence
    heldout_fraction: float  # share of the documents held out (the validation split)
    packing: str  # document, full or best_fit
