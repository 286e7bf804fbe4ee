"""The pretraining job: build or load a model, train it with MLM, publish it."""

from __future__ import annotations

import os

import torch
from transformers import AutoModelForMaskedLM

from biocompact.locations import resolve_location
from biocompact.models.presets import build_config
from biocompact.pretraining.mlm import MaskedLanguageModelling
from biocompact.training.loop import TrainingSettings
from biocompact.training.stage import load_corpus, train_and_publish


def run_pretraining(
    name: str,
    dataset_dir: str | os.PathLike,
    tokenizer_dir: str | os.PathLike,
    outputs: dict[str, str],
    checkpoint_dir: str | os.PathLike,
    architecture: dict,
    init: str,
    training: dict,
    masking: dict,
    max_seq_length: int,
    probes: list[dict],
    threads: int = 1,
) -> dict:
    """Pretrain model ``name`` from scratch (``init="scratch"``) or continue from a checkpoint."""
    corpus, tokenizer, batcher = load_corpus(dataset_dir, tokenizer_dir, masking)
    settings = TrainingSettings(**training)
    if init == "scratch":
        config = build_config(architecture, vocab_size=len(tokenizer), max_position_embeddings=max(512, max_seq_length))
        config.pad_token_id = tokenizer.pad_token_id
        torch.manual_seed(settings.seed)
        model = AutoModelForMaskedLM.from_config(config)
    else:
        model = AutoModelForMaskedLM.from_pretrained(resolve_location(init))
        if model.config.vocab_size < len(tokenizer):
            raise ValueError(
                f"{init} has a vocabulary of {model.config.vocab_size} tokens but the corpus was "
                f"tokenised with {len(tokenizer)}: continued pretraining needs the checkpoint's own "
                "vocabulary (a vocabulary of type 'pretrained' pointing at it)"
            )
    description = {"model": name, "init": init, "architecture": model.config.to_diff_dict()}
    return train_and_publish(
        MaskedLanguageModelling(model), corpus, tokenizer, batcher, settings,
        checkpoint_dir, outputs, probes, description, threads,
    )
