"""Rule entry points of the compression stage: one function per rule of
workflow/rules/compression.smk, named after the rule.

Light at import (no torch): rule compression_summary runs in envs/report.yaml, which has no
torch, so the rules that load a model import their modules when they are called."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from biocompact.compression.settings import CompressedEvaluation, CompressionFormat
from biocompact.compression.summary import write_summary
from biocompact.records.compressed_format import CompressedFormatEvaluation


def compress(
    compression: CompressionFormat,
    *,
    inputs: Mapping[str, str],
    outputs: Mapping[str, str],
    threads: int,
) -> None:
    """Format ``compression.format`` of the saved model ``inputs["model"]`` into
    ``outputs["model"]`` on ``threads`` CPU threads (``formats.compress``)."""
    import torch

    from biocompact.compression import formats

    torch.set_num_threads(threads)
    formats.compress(inputs["model"], compression.format, outputs["model"])


def evaluate_compressed(
    evaluation: CompressedEvaluation,
    *,
    inputs: Mapping[str, str | Sequence[str]],
    outputs: Mapping[str, Sequence[str | Path]],
    threads: int,
) -> dict[str, CompressedFormatEvaluation]:
    """``evaluate_formats`` of the folders named by ``evaluation.formats`` among the rule's
    inputs; ``outputs`` evaluations and predictions list the files in the order of the
    formats."""
    from biocompact.compression.evaluation import evaluate_formats

    formats = evaluation.formats
    return evaluate_formats(
        {name: str(inputs[name]) for name in formats},  # a format's folder: one path
        evaluation.task,
        evaluation.seed,
        dict(zip(formats, outputs["evaluations"])),
        dict(zip(formats, outputs["predictions"])),
        batch_sizes=evaluation.batch_sizes,
        sequence_lengths=evaluation.sequence_lengths,
        repeats=evaluation.repeats,
        threads=threads,
        model_name=evaluation.model,
        task_name=evaluation.task_name,
    )


def compression_summary(
    *, inputs: Mapping[str, Sequence[str]], outputs: Mapping[str, str]
) -> pd.DataFrame:
    """The summary CSV ``outputs["summary"]`` of every format's ``inputs["evaluations"]``."""
    return write_summary(inputs["evaluations"], outputs["summary"])
