"""Rule entry points of the pretraining stage: one function per rule of
workflow/rules/pretraining.smk, named after the rule."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypedDict

from biocompact.entries import parse_entry
from biocompact.pretraining.run import PretrainingSpec, run_pretraining
from biocompact.pretraining.settings import PretrainingSettings
from biocompact.records.tokenized_corpus import TokenizedCorpusRecord
from biocompact.training.language_model_job import PretrainingJob, train_language_model


class PretrainingInputs(TypedDict):
    """The named inputs of rule pretrain."""

    corpus: str
    corpus_record: str
    contamination: str | Sequence[str]  # [] when the corpus is not decontaminated
    tokenizer: str


def pretrain(
    settings: PretrainingJob,
    *,
    inputs: PretrainingInputs,
    outputs: Mapping[str, str],
    threads: int,
    gpus: int,
    nodes: int,
) -> None:
    """Pretrain one model (inputs: corpus, its record, tokenizer; outputs: model, log,
    eval), its positions as long as the corpus's sequences."""
    train_language_model(
        run_pretraining,
        PretrainingSpec,
        settings,
        inputs,
        outputs,
        threads=threads,
        gpus=gpus,
        nodes=nodes,
        settings=parse_entry(PretrainingSettings, settings.settings),
        tokenizer_dir=inputs["tokenizer"],
        # the record rule tokenize_corpus wrote beside the corpus (records.tokenized_corpus)
        max_seq_length=TokenizedCorpusRecord.read(inputs["corpus_record"]).max_seq_length,
    )
