"""The masked-language-modelling objective, with the MLM head run on masked positions only."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from transformers import (
    AutoModelForMaskedLM,
    PretrainedConfig,
    PreTrainedModel,
    PreTrainedTokenizerBase,
)

from biocompact.models.last_layer import enable_last_layer_at_positions
from biocompact.pretraining.settings import ElectraOptions
from biocompact.training.batches import MaskedBatcher
from biocompact.training.evaluation import masked_lm_logits
from biocompact.training.objective import Objective


class MaskedLanguageModelling(Objective):
    def __init__(self, model: PreTrainedModel):
        super().__init__()
        self.model = model
        self.last_layer_sparse = enable_last_layer_at_positions(model)

    def forward(
        self, batch: dict[str, torch.Tensor]
    ) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        logits, labels = masked_lm_logits(self.model, batch, predicted_only=True)
        loss = F.cross_entropy(logits.float(), labels)
        return loss, {"loss_mlm": loss.detach()}

    def model_to_save(self) -> PreTrainedModel:
        return self.model

    def last_layer_at_predictions(self) -> bool:
        return self.last_layer_sparse


def build_mlm(
    config: PretrainedConfig | None,
    location: str | None,
    options: ElectraOptions,
    tokenizer: PreTrainedTokenizerBase,
    batcher: MaskedBatcher,
) -> tuple[Objective, MaskedBatcher]:
    """MLM (BERT, RoBERTa) on a new model of ``config`` or the saved one at ``location``."""
    model = (
        AutoModelForMaskedLM.from_pretrained(location)
        if location
        else AutoModelForMaskedLM.from_config(config)
    )
    return MaskedLanguageModelling(model), batcher
