"""ONNX export of a fine-tuned model (``torch.onnx.export``'s default exporter, from
``torch.export``; dynamic batch and sequence axes) and an ``nn.Module`` running the exported
graph with ONNX Runtime's CPUExecutionProvider, so the harness scores it like a PyTorch model."""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnxruntime
import torch
from transformers import AutoConfig, PreTrainedModel

ONNX_FILE = "model.onnx"
# What an exported graph may take, in the order of _Outputs.forward (the graph's inputs)
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
EXAMPLE_SHAPE = (2, 8)  # batch, sequence of the example inputs traced (both dynamic)


class _Outputs(torch.nn.Module):
    """The model's output tensors (no loss) as a tuple, in the order of ``names``."""

    def __init__(self, model: PreTrainedModel, names: Sequence[str]) -> None:
        super().__init__()
        self.model = model
        self.names = list(names)

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor | None = None,
        token_type_ids: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, ...]:
        given = {"attention_mask": attention_mask, "token_type_ids": token_type_ids}
        inputs = {name: value for name, value in given.items() if value is not None}
        outputs = self.model(input_ids=input_ids, **inputs)
        return tuple(outputs[name] for name in self.names)


def export_onnx(model: PreTrainedModel, input_names: Sequence[str], path: str | Path) -> list[str]:
    """Export ``model`` (inputs ``input_names``, int64 of shape batch x sequence) to the ONNX
    file ``path`` (weights inside); returns the output names (the model's outputs
    but the loss, e.g. ``logits``)."""
    model = model.eval()
    accepted = inspect.signature(model.forward).parameters
    input_names = [name for name in INPUTS if name in input_names and name in accepted]
    generator = torch.Generator().manual_seed(0)
    examples = {
        name: (
            torch.randint(0, model.config.vocab_size, EXAMPLE_SHAPE, generator=generator)
            if name == "input_ids"
            else torch.ones(EXAMPLE_SHAPE, dtype=torch.long)
            if name == "attention_mask"
            else torch.zeros(EXAMPLE_SHAPE, dtype=torch.long)
        )
        for name in input_names
    }
    with torch.inference_mode():
        names = [name for name in model(**examples) if name != "loss"]
    batch, sequence = torch.export.Dim("batch"), torch.export.Dim("sequence")
    program = torch.onnx.export(
        _Outputs(model, names).eval(),
        (),
        kwargs=examples,
        input_names=input_names,
        output_names=names,
        dynamic_shapes={name: {0: batch, 1: sequence} for name in input_names},
        dynamo=True,
        external_data=False,
    )
    assert program is not None  # dynamo=True returns the program
    program.save(str(path), external_data=False)
    return names


class OnnxModel(torch.nn.Module):
    """An exported model run by ONNX Runtime on CPU with ``threads`` intra-op threads: called
    with the tokenizer's tensors, returns ``{output name: tensor}`` (a Trainer reads it as a
    model's output). ``config``: the Hugging Face config saved beside the graph."""

    main_input_name = "input_ids"

    def __init__(self, folder: str | Path, threads: int = 1) -> None:
        super().__init__()
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # errors only
        self.session = onnxruntime.InferenceSession(
            str(Path(folder) / ONNX_FILE), options, providers=["CPUExecutionProvider"]
        )
        self.input_names = [node.name for node in self.session.get_inputs()]
        self.output_names = [node.name for node in self.session.get_outputs()]
        self.config = AutoConfig.from_pretrained(folder)

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor | None = None,
        token_type_ids: torch.Tensor | None = None,
    ) -> dict[str, torch.Tensor]:
        given = {"attention_mask": attention_mask, "token_type_ids": token_type_ids}
        feed = {"input_ids": input_ids.cpu().numpy().astype(np.int64)}
        for name in self.input_names:
            if name == "input_ids":
                continue
            value = given[name]
            if value is None:  # as the PyTorch model does: attend everywhere, segment 0
                value = (
                    torch.ones_like(input_ids)
                    if name == "attention_mask"
                    else torch.zeros_like(input_ids)
                )
            feed[name] = value.cpu().numpy().astype(np.int64)
        outputs = self.session.run(self.output_names, feed)
        return {name: torch.from_numpy(array) for name, array in zip(self.output_names, outputs)}
