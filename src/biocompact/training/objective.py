"""The interface between the training loop and what is being trained."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import datasets
import torch
from torch import nn
from transformers import PreTrainedModel, PreTrainedTokenizerBase

from biocompact.training.evaluation import evaluate_language_model
from biocompact.training.settings import Probe


class Objective(nn.Module):
    """A trainable objective: ``forward(batch)`` returns the loss and its named terms.

    Submodules whose names start with a prefix in ``frozen`` (a distillation teacher)
    are neither trained nor checkpointed.
    """

    frozen: tuple[str, ...] = ()
    # False: some trainable parameters get no gradient (data-parallel training looks for
    # them at every step, which costs a pass over the graph)
    every_parameter_trained: bool = True

    def forward(
        self, batch: dict[str, torch.Tensor]
    ) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        raise NotImplementedError

    def model_to_save(self) -> PreTrainedModel:
        """The Hugging Face model that the stage publishes when training ends."""
        raise NotImplementedError

    def last_layer_at_predictions(self) -> bool:
        """Whether the last encoder layer runs at the masked positions only (MFU counts that)."""
        return False

    def evaluate(
        self,
        tokenizer: PreTrainedTokenizerBase,
        validation: datasets.Dataset,
        batcher: Any,  # the objective's own: a MaskedBatcher here, a PairBatcher for segments
        probes: Sequence[Probe],
    ) -> dict:
        """The held-out figures of the trained model, fields of its ``eval.json`` record
        (``LanguageModelRecord``): held-out MLM loss and fill-mask probes."""
        return evaluate_language_model(self.model_to_save(), tokenizer, validation, batcher, probes)

    def trainable_state(self) -> dict[str, torch.Tensor]:
        return {k: v for k, v in self.state_dict().items() if not k.startswith(self.frozen)}

    def load_trainable_state(self, state: dict[str, torch.Tensor]) -> None:
        missing, unexpected = self.load_state_dict(state, strict=False)
        missing = [key for key in missing if not key.startswith(self.frozen)]
        if missing or unexpected:
            raise RuntimeError(
                f"checkpoint does not match the objective: missing {missing}, unexpected {unexpected}"
            )
