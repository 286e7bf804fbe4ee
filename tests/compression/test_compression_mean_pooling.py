"""A fine-tuned BERT that pools by mean (``finetuning.pooling``) keeps its pooling in the
int8 and ONNX formats: each predicts as the fp32 model."""

from __future__ import annotations

import numpy as np
import onnxruntime
import torch
from tiny_models import EXACT
from transformers import BertConfig, BertForSequenceClassification

from biocompact.compression.onnx_runtime import export_onnx
from biocompact.compression.quantisation import load_int8, quantise_int8, save_int8
from biocompact.finetuning.pooling import apply_pooling

INPUT_IDS = np.array([[2, 7, 9, 3], [2, 5, 3, 1]])
MASK = np.array([[1, 1, 1, 1], [1, 1, 1, 0]])  # the second padded after 3 tokens


def mean_pooled() -> BertForSequenceClassification:
    torch.manual_seed(0)
    config = BertConfig(**EXACT, num_labels=2, architectures=["BertForSequenceClassification"])
    return apply_pooling(BertForSequenceClassification(config).eval(), "mean")


def logits(model) -> torch.Tensor:
    with torch.no_grad():
        inputs = {"input_ids": torch.tensor(INPUT_IDS), "attention_mask": torch.tensor(MASK)}
        return model(**inputs).logits


def test_the_onnx_export_of_a_mean_pooled_model_predicts_as_it(tmp_path):
    model = mean_pooled()
    export_onnx(model, ["input_ids", "attention_mask", "token_type_ids"], tmp_path / "m.onnx")
    session = onnxruntime.InferenceSession(str(tmp_path / "m.onnx"))
    given = {"input_ids": INPUT_IDS, "attention_mask": MASK}
    feeds = {i.name: given.get(i.name, np.zeros_like(INPUT_IDS)) for i in session.get_inputs()}
    np.testing.assert_allclose(session.run(None, feeds)[0], logits(model).numpy(), atol=1e-6)


def test_the_int8_model_of_a_mean_pooled_model_reloads_with_its_pooling(tmp_path):
    quantised = quantise_int8(mean_pooled())
    save_int8(quantised, tmp_path)
    torch.testing.assert_close(logits(load_int8(tmp_path)), logits(quantised))
