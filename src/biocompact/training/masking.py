"""Whole-word masking for masked language modelling (BERT's 15%, 80/10/10 recipe).

Own implementation rather than ``DataCollatorForLanguageModeling(whole_word_mask=True)``:
the packed corpus already carries each token's word index, so masking is a few
vectorised tensor operations on the batch, and the caller gets the masked positions
it needs to run the MLM head only there.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

IGNORE_INDEX = -100


@dataclass(frozen=True)
class MaskingSettings:
    probability: float = 0.15
    replace_with_mask: float = 0.8
    replace_with_random: float = 0.1
    whole_word: bool = True
    # None: dynamic masking (a new mask every time a sequence is seen, RoBERTa's choice);
    # D: static masking as in BERT's create_pretraining_data, D fixed masked copies of
    # every sequence, epoch e seeing copy e mod D.
    duplication_factor: int | None = None


def mask_tokens(
    input_ids: torch.Tensor,
    word_ids: torch.Tensor,
    mask_token_id: int,
    vocab_size: int,
    settings: MaskingSettings,
    generator: torch.Generator,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Return (masked input ids, labels); labels are ``IGNORE_INDEX`` where nothing is predicted.

    ``word_ids`` is -1 for special and padding tokens, which are never masked. With
    ``whole_word`` every token of a chosen word is chosen; otherwise each token alone.
    """
    maskable = word_ids >= 0
    if settings.whole_word:
        n_words = int(word_ids.max().item()) + 1 if maskable.any() else 1
        word_draw = torch.rand((input_ids.shape[0], n_words), generator=generator)
        draw = word_draw.gather(1, word_ids.clamp(min=0))
    else:
        draw = torch.rand(input_ids.shape, generator=generator)
    chosen = (draw < settings.probability) & maskable
    # Like BERT, predict at least one word in every sequence that has one.
    empty = maskable.any(dim=1) & ~chosen.any(dim=1)
    if empty.any():
        lowest = torch.where(maskable, draw, torch.inf).min(dim=1, keepdim=True).values
        chosen |= empty[:, None] & maskable & (draw == lowest)
    labels = torch.where(chosen, input_ids, torch.full_like(input_ids, IGNORE_INDEX))

    action = torch.rand(input_ids.shape, generator=generator)
    to_mask = chosen & (action < settings.replace_with_mask)
    to_random = (
        chosen
        & (action >= settings.replace_with_mask)
        & (action < settings.replace_with_mask + settings.replace_with_random)
    )
    random_tokens = torch.randint(vocab_size, input_ids.shape, generator=generator)
    masked = torch.where(to_mask, torch.full_like(input_ids, mask_token_id), input_ids)
    masked = torch.where(to_random, random_tokens, masked)
    return masked, labels
