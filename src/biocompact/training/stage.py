"""What pretraining and distillation jobs share around the loop: inputs, threads, publishing."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Sequence
from dataclasses import asdict

import datasets
import pyarrow.compute as pc
import torch
from transformers import AutoTokenizer, PreTrainedTokenizerBase

from biocompact.files.atomic import atomic_path, write_json
from biocompact.records.base import record_data
from biocompact.records.language_model import LanguageModelRecord, ModelDescription
from biocompact.tracking.trackers import TrackingSettings
from biocompact.training import distributed
from biocompact.training.batches import MaskedBatcher
from biocompact.training.loop import train
from biocompact.training.objective import Objective
from biocompact.training.settings import MaskingSettings, Probe, TrainingSettings


def load_corpus(
    dataset_dir: str | os.PathLike, tokenizer_dir: str | os.PathLike, masking: MaskingSettings
):
    """The packed corpus, its tokenizer and a batcher that masks with ``masking`` settings
    and pads every batch to the corpus's longest sequence (one shape for the whole run)."""
    corpus = datasets.load_from_disk(str(dataset_dir))
    check_document_starts(corpus, dataset_dir)
    tokenizer = AutoTokenizer.from_pretrained(tokenizer_dir)
    batcher = MaskedBatcher(
        tokenizer.pad_token_id,
        tokenizer.mask_token_id,
        len(tokenizer),
        masking,
        length=longest_sequence(corpus),
    )
    return corpus, tokenizer, batcher


def longest_sequence(corpus: datasets.DatasetDict) -> int:
    """The most tokens a sequence of the corpus holds (from the Arrow list lengths)."""
    return max(
        pc.max(pc.list_value_length(split.data.column("input_ids"))).as_py() or 0
        for split in corpus.values()
    )


def check_document_starts(corpus: datasets.DatasetDict, dataset_dir: str | os.PathLike) -> None:
    """Refuse a corpus whose sequences hold several documents without ``document_starts``
    (packed before they were stored): it would train with attention across documents."""
    train = corpus["train"]
    if "document_starts" in train.column_names or "last_document" not in train.column_names:
        return
    table = train.data
    if pc.any(pc.not_equal(table.column("document"), table.column("last_document"))).as_py():
        raise ValueError(
            f"{dataset_dir}: its sequences hold several documents but not where each starts "
            "(the column document_starts; packed by an earlier version): tokenise the corpus "
            "again (snakemake --forcerun tokenize_corpus)"
        )


def train_and_publish(
    objective: Objective,
    corpus: datasets.DatasetDict,
    tokenizer: PreTrainedTokenizerBase,
    batcher: MaskedBatcher,
    *,
    settings: TrainingSettings,
    checkpoint_dir: str | os.PathLike,
    outputs: dict[str, str],
    probes: Sequence[Probe],
    description: ModelDescription,
    threads: int,
    tracking: TrackingSettings | None = None,
    run_name: str = "",
) -> dict:
    """Train (resuming if possible), then write the model folder, the log and ``eval.json``.

    ``outputs`` names the ``model``, ``log`` and ``eval`` paths; the model folder appears
    only once training has ended. Under torchrun only the main process evaluates and
    writes; the others return an empty dict. The training curves go to TensorBoard and to the
    trackers of ``tracking``, as run ``run_name`` with its parameters (stage, model, seed,
    the training settings and ``description``). Returns the record as ``eval.json`` holds it.
    """
    torch.set_num_threads(threads)
    parameters = {
        "stage": run_name.split("/", 1)[0],
        "model": description.model,
        "seed": settings.seed,
        "hyperparameters": asdict(settings),
        "config": record_data(description),
    }
    log_path = train(
        objective,
        corpus["train"],
        batcher,
        settings,
        checkpoint_dir,
        tracking=tracking,
        run_name=run_name,
        run_params=parameters,
    )
    if not distributed.is_main():
        return {}
    model = objective.model_to_save()
    record = LanguageModelRecord(
        description=description,
        steps=settings.steps,
        train_tokens=_trained_tokens(log_path),
        training=asdict(settings),
        **objective.evaluate(tokenizer, corpus["validation"], batcher, probes),
    )
    with atomic_path(outputs["model"], is_dir=True) as folder:
        model.save_pretrained(folder)
        tokenizer.save_pretrained(folder)
    with atomic_path(outputs["log"]) as temporary:
        shutil.copyfile(log_path, temporary)
    data = record_data(record)
    write_json(outputs["eval"], data)
    return data


def _trained_tokens(log_path: os.PathLike) -> int:
    """Tokens seen in training, from the last line of the training log (0 if it is empty)."""
    with open(log_path, encoding="utf-8") as handle:
        lines = handle.readlines()
    return json.loads(lines[-1])["tokens"] if lines else 0
