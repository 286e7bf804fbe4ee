"""Model FLOPs utilisation (MFU): the model's training FLOPs per second over the device's peak.

Training FLOPs of a step = 3 x forward FLOPs (the backward pass costs twice the forward):
the encoder's ``2 N + 4 L S H`` per real token (``biocompact.efficiency.benchmark``) plus the MLM
head's ``2 N_head`` per predicted (masked) position, the only positions it runs on (and
where the last layer runs there only, ``biocompact.models.last_layer``, its keys and values
at every token and the rest of it per prediction).
Padding, embedding look-ups and a frozen teacher are not counted, so MFU is conservative.
"""

from __future__ import annotations

import torch
from transformers import PreTrainedModel

from biocompact.efficiency.benchmark import flops_per_token, parameter_counts
from biocompact.models.heads import mlm_head
from biocompact.training.masking import IGNORE_INDEX

# Dense bf16 tensor-core peak in TFLOP/s from the vendors' datasheets; the first name
# that occurs in ``torch.cuda.get_device_name()`` wins (so "H100 PCIe" precedes "H100").
PEAK_BF16_TFLOPS: dict[str, float] = {
    "H200": 989.0,
    "H100 PCIe": 756.0,
    "H100": 989.0,
    "A100": 312.0,
    "L40S": 362.0,
    "L4": 121.0,
    "A10G": 70.0,
    "A10": 125.0,
    "RTX 6000 Ada": 364.0,
    "RTX 4090": 165.0,
    "A6000": 155.0,
}


def peak_tflops(device: torch.device, configured: float | None = None) -> float | None:
    """The device's peak (``configured`` if given); None on the CPU or an unknown GPU."""
    if configured is not None:
        return configured
    if device.type != "cuda":
        return None
    name = torch.cuda.get_device_name(device)
    return next((peak for key, peak in PEAK_BF16_TFLOPS.items() if key in name), None)


class FlopCounter:
    """Training FLOPs of MLM batches for one model (its sizes read once).

    ``last_layer_at_predictions``: the last layer computes keys and values at every token and
    the rest at the masked positions only (``biocompact.models.last_layer``), so only that
    is counted.
    """

    def __init__(self, model: PreTrainedModel, last_layer_at_predictions: bool = False):
        config = model.config
        base = model.base_model
        assert isinstance(base, PreTrainedModel)  # BertModel, ...: typed as a Module only
        self.layer_parameters = parameter_counts(base).layers
        self.layers = config.num_hidden_layers
        self.hidden_size = config.hidden_size
        # a tied decoder is listed here too, so the vocabulary projection is counted
        self.head_parameters = sum(p.numel() for p in mlm_head(model).parameters())
        self.last_layer_at_predictions = last_layer_at_predictions

    def __call__(self, batch: dict[str, torch.Tensor]) -> float:
        tokens = int(batch["attention_mask"].sum())
        predictions = int((batch["labels"] != IGNORE_INDEX).sum())
        width = batch["attention_mask"].shape[1]
        if not self.last_layer_at_predictions:
            per_token = flops_per_token(self.layer_parameters, self.layers, self.hidden_size, width)
            return 3.0 * (per_token * tokens + 2 * self.head_parameters * predictions)
        per_layer = self.layer_parameters // self.layers
        below_last = flops_per_token(
            per_layer * (self.layers - 1), self.layers - 1, self.hidden_size, width
        )
        key_value = 2 * (self.hidden_size**2 + self.hidden_size)
        last_rest = flops_per_token(per_layer - key_value, 1, self.hidden_size, width)
        encoder = (below_last + 2 * key_value) * tokens + last_rest * predictions
        return 3.0 * (encoder + 2 * self.head_parameters * predictions)
