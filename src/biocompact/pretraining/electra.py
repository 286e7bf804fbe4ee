"""ELECTRA's replaced-token detection (Alrowili and Shanker's BioM-ELECTRA).

A small masked-language-model generator fills the masked positions with tokens sampled
from its softmax (no gradient flows through the sampling); the discriminator labels
every token of the result as original or replaced. Both train jointly on
``generator MLM loss + discriminator_weight x detection loss``; they share the token
and position embeddings, as in the ELECTRA paper. The discriminator is the model that
is saved and fine-tuned.
"""

from __future__ import annotations

from collections.abc import Sequence

import datasets
import torch
import torch.nn.functional as F
from transformers import (
    ElectraConfig,
    ElectraForMaskedLM,
    ElectraForPreTraining,
    PreTrainedModel,
    PreTrainedTokenizerBase,
)

from biocompact.models.documents import encoder_inputs
from biocompact.models.last_layer import enable_last_layer_at_positions
from biocompact.pretraining.settings import ElectraOptions
from biocompact.training.batches import MaskedBatcher
from biocompact.training.evaluation import (
    EVAL_MASKING_SEED,
    evaluate_language_model,
    masked_lm_logits,
)
from biocompact.training.masking import IGNORE_INDEX
from biocompact.training.objective import Objective
from biocompact.training.settings import Probe


def generator_config(discriminator: ElectraConfig, fraction: float) -> ElectraConfig:
    """The generator: the discriminator's depth and embeddings, ``fraction`` of its width."""
    config = ElectraConfig(**discriminator.to_dict())
    config.hidden_size = max(1, round(discriminator.hidden_size * fraction))
    config.num_attention_heads = max(1, round(discriminator.num_attention_heads * fraction))
    config.intermediate_size = max(1, round(discriminator.intermediate_size * fraction))
    if config.hidden_size % config.num_attention_heads:
        raise ValueError(
            f"generator_fraction {fraction} gives a generator of hidden size {config.hidden_size}, "
            f"not divisible by its {config.num_attention_heads} attention heads"
        )
    return config


def replace_tokens(
    input_ids: torch.Tensor, labels: torch.Tensor, positions: torch.Tensor, sampled: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """The discriminator's input and labels: the predicted ``positions`` hold ``sampled`` tokens.

    ``sampled`` has one token per entry of ``positions`` (batch x count, the batch's
    ``masked_positions``); entries whose label is ``IGNORE_INDEX`` keep their token. A
    position is labelled replaced (1) where its token differs from the original one, so a
    sample that happens to equal the original counts as original (the paper's rule).
    """
    original = torch.where(labels != IGNORE_INDEX, labels, input_ids)
    predicted = labels.gather(1, positions) != IGNORE_INDEX
    kept = original.gather(1, positions)
    corrupted = original.scatter(1, positions, torch.where(predicted, sampled, kept))
    return corrupted, (corrupted != original).long()


class ReplacedTokenDetection(Objective):
    def __init__(
        self,
        generator: ElectraForMaskedLM,
        discriminator: ElectraForPreTraining,
        discriminator_weight: float,
    ):
        super().__init__()
        generator.electra.embeddings = discriminator.electra.embeddings
        generator.generator_lm_head.weight = discriminator.electra.embeddings.word_embeddings.weight
        self.generator = generator
        enable_last_layer_at_positions(generator)
        self.discriminator = discriminator
        self.discriminator_weight = discriminator_weight

    def corrupt(
        self,
        batch: dict[str, torch.Tensor],
        generator_logits: torch.Tensor,
        rng: torch.Generator | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Sample replacements from the generator's softmax (``generator_logits``: one row per
        entry of the batch's ``masked_positions``) and label the replaced positions."""
        positions = batch["masked_positions"]
        probabilities = F.softmax(generator_logits.detach().float(), dim=-1)
        sampled = torch.multinomial(probabilities, 1, generator=rng).view(positions.shape)
        return replace_tokens(batch["input_ids"], batch["labels"], positions, sampled)

    def forward(
        self, batch: dict[str, torch.Tensor]
    ) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        logits, targets = masked_lm_logits(self.generator, batch)
        generator_loss = F.cross_entropy(logits.float(), targets)
        corrupted, replaced = self.corrupt(batch, logits)
        detection = self.detect({**batch, "input_ids": corrupted})
        active = batch["attention_mask"].float()
        detection_loss = (
            F.binary_cross_entropy_with_logits(
                detection.float(), replaced.float(), reduction="none"
            )
            * active
        ).sum() / active.sum()
        loss = generator_loss + self.discriminator_weight * detection_loss
        return loss, {"loss_mlm": generator_loss.detach(), "loss_rtd": detection_loss.detach()}

    def detect(self, batch: dict[str, torch.Tensor]) -> torch.Tensor:
        """The discriminator's replaced-token logits at every position of ``batch``."""
        return self.discriminator(**encoder_inputs(self.discriminator, batch)).logits

    def model_to_save(self) -> PreTrainedModel:
        return self.discriminator

    @torch.inference_mode()
    def replaced_token_accuracy(
        self, dataset: datasets.Dataset, batcher: MaskedBatcher, batch_size: int = 32
    ) -> float:
        """Share of held-out tokens the discriminator labels right (fixed masking and sampling seeds)."""
        self.eval()
        device = next(self.parameters()).device
        masking = torch.Generator().manual_seed(EVAL_MASKING_SEED)
        sampling = torch.Generator(device=device).manual_seed(EVAL_MASKING_SEED)
        right = total = 0
        for start in range(0, len(dataset), batch_size):
            batch = {
                k: v.to(device)
                for k, v in batcher(dataset[start : start + batch_size], masking).items()
            }
            corrupted, replaced = self.corrupt(
                batch, masked_lm_logits(self.generator, batch)[0], sampling
            )
            detection = self.detect({**batch, "input_ids": corrupted})
            active = batch["attention_mask"].bool()
            right += int(((detection[active] > 0).long() == replaced[active]).sum())
            total += int(active.sum())
        return right / max(total, 1)

    def evaluate(
        self,
        tokenizer: PreTrainedTokenizerBase,
        validation: datasets.Dataset,
        batcher: MaskedBatcher,
        probes: Sequence[Probe],
    ) -> dict:
        """The discriminator has no MLM head: held-out loss, perplexity and fill-mask are the generator's."""
        figures = evaluate_language_model(self.generator, tokenizer, validation, batcher, probes)
        return {
            **figures,
            "parameters": sum(p.numel() for p in self.discriminator.parameters()),
            "generator_parameters": figures["parameters"],
            "heldout_model": "generator",
            "replaced_token_accuracy": self.replaced_token_accuracy(validation, batcher),
        }


def build_electra(
    config: ElectraConfig | None,
    location: str | None,
    options: ElectraOptions,
    tokenizer: PreTrainedTokenizerBase,
    batcher: MaskedBatcher,
) -> tuple[Objective, MaskedBatcher]:
    """A new generator beside a new discriminator (``config``) or a saved one (``location``)."""
    if location:
        discriminator = ElectraForPreTraining.from_pretrained(location)
    else:
        assert config is not None  # a new model: config given
        discriminator = ElectraForPreTraining(config)
    generator = ElectraForMaskedLM(
        generator_config(discriminator.config, options.generator_fraction)
    )
    return ReplacedTokenDetection(generator, discriminator, options.discriminator_weight), batcher
