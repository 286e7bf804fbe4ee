"""The formats of a fine-tuned model: fp32 (the saved model, the reference), int8 (PyTorch
dynamic quantisation) and onnx (ONNX Runtime on CPU). Each lives in a folder with its
weights file, the model's config (labels, vocabulary size) and its tokenizer."""

from __future__ import annotations

from pathlib import Path

import torch
import transformers
from transformers import AutoConfig, AutoTokenizer, PreTrainedModel

from biocompact.compression.onnx_runtime import ONNX_FILE, OnnxModel, export_onnx
from biocompact.compression.quantisation import INT8_WEIGHTS, load_int8, quantise_int8, save_int8
from biocompact.compression.settings import FORMATS, REFERENCE
from biocompact.files.atomic import atomic_path
from biocompact.finetuning.pooling import restore_pooling
from biocompact.release.cards import CARD_FILE, compressed_model_card, write_card

WEIGHT_FILES = {REFERENCE: "model.safetensors", "int8": INT8_WEIGHTS, "onnx": ONNX_FILE}


def load_fp32(folder: str | Path) -> PreTrainedModel:
    """A saved fine-tuned model, built as the class its config's ``architectures`` names,
    pooling as it was fine-tuned (``finetuning.pooling``)."""
    config = AutoConfig.from_pretrained(folder)
    model = getattr(transformers, config.architectures[0]).from_pretrained(folder)
    return restore_pooling(model).eval()


def compress(fp32_folder: str | Path, format_name: str, out_folder: str | Path) -> None:
    """Write format ``format_name`` of the fine-tuned model in ``fp32_folder`` to
    ``out_folder`` (atomically), with the model's config and tokenizer, and its model card
    made from the fp32 model's when that has one."""
    if format_name not in FORMATS:
        raise ValueError(f"unknown compression format {format_name!r}; known: {list(FORMATS)}")
    model = load_fp32(fp32_folder)
    tokenizer = AutoTokenizer.from_pretrained(fp32_folder)
    with atomic_path(out_folder, is_dir=True) as folder:
        if format_name == "int8":
            save_int8(quantise_int8(model), folder)
        else:
            export_onnx(model, tokenizer.model_input_names, folder / ONNX_FILE)
            model.config.save_pretrained(folder)
        tokenizer.save_pretrained(folder)
        if (Path(fp32_folder) / CARD_FILE).exists():  # the workflow's saved models have one
            write_card(compressed_model_card(fp32_folder, format_name, out_folder), folder)


def load_format(
    folder: str | Path, format_name: str, threads: int = 1
) -> PreTrainedModel | OnnxModel:
    """The model of format ``format_name`` saved in ``folder``, ready for inference with
    ``threads`` CPU threads (PyTorch's for fp32 and int8, ONNX Runtime's for onnx)."""
    torch.set_num_threads(threads)
    if format_name == REFERENCE:
        return load_fp32(folder)
    if format_name == "int8":
        return load_int8(folder)
    if format_name == "onnx":
        return OnnxModel(folder, threads)
    raise ValueError(f"unknown format {format_name!r}; known: {[REFERENCE, *FORMATS]}")


def weights_bytes(folder: str | Path, format_name: str) -> int:
    """Size on disk of the format's weights file (config and tokenizer files excluded)."""
    return (Path(folder) / WEIGHT_FILES[format_name]).stat().st_size
