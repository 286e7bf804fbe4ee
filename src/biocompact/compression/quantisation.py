"""PyTorch dynamic int8 quantisation (``torch.ao.quantization.quantize_dynamic``): the weights
of every ``nn.Linear`` stored as int8 with one scale per tensor, activations quantised on the
fly at inference; embeddings and LayerNorms stay fp32. CPU only."""

from __future__ import annotations

from pathlib import Path

import torch
import transformers
from transformers import AutoConfig, PreTrainedModel

from biocompact.finetuning.pooling import restore_pooling

INT8_WEIGHTS = "model_int8.pt"  # the quantised state dict (packed int8 weights and scales)


def quantise_int8(model: PreTrainedModel) -> PreTrainedModel:
    """A copy of ``model`` with every ``nn.Linear`` replaced by its dynamic int8 version."""
    return torch.ao.quantization.quantize_dynamic(
        model.eval(), {torch.nn.Linear}, dtype=torch.qint8, inplace=False
    )


def save_int8(model: PreTrainedModel, folder: str | Path) -> None:
    """Write the quantised ``model``'s config and state dict into the folder ``folder``."""
    model.config.save_pretrained(folder)
    torch.save(model.state_dict(), Path(folder) / INT8_WEIGHTS)


def load_int8(folder: str | Path) -> PreTrainedModel:
    """The model saved by ``save_int8``: its architecture built from the config (class named in
    ``architectures``, pooling as fine-tuned), quantised alike, then the int8 state dict
    loaded into it."""
    config = AutoConfig.from_pretrained(folder)
    architecture = getattr(transformers, config.architectures[0])
    model = quantise_int8(restore_pooling(architecture._from_config(config)))
    state = torch.load(Path(folder) / INT8_WEIGHTS, weights_only=False)  # packed params
    model.load_state_dict(state)
    return model.eval()
