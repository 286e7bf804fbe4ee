"""Whole-word masking for masked language modelling (BERT's 15%, 80/10/10 recipe).

Own implementation rather than ``DataCollatorForLanguageModeling(whole_word_mask=True)``:
the packed corpus already carries each token's word index, so masking is a few
vectorised tensor operations on the batch, and the caller gets the masked positions
it needs to run the MLM head only there.

Every sequence predicts a fixed number of tokens, as BERT's ``create_pretraining_data``
does: ``round(probability x its maskable tokens)`` (at least one), whole words taken in a
random order while they fit in that count (a word that would pass it is skipped). So a
batch of sequences of length L predicts at most ``predictions_per_sequence(L)`` tokens a
sequence, and the step can gather a fixed number of positions per sequence
(``prediction_positions``): no shape in the step depends on the data.
"""

from __future__ import annotations

import torch

from biocompact.training.settings import MaskingSettings

IGNORE_INDEX = -100


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
    ``whole_word`` every token of a chosen word is chosen; otherwise each token alone is a
    word. Each sequence predicts ``round(probability x maskable tokens)`` tokens, at least
    one word (``choose_words``).
    """
    maskable = word_ids >= 0
    if settings.whole_word:
        units = word_ids
    else:  # every maskable token its own word
        units = torch.where(maskable, torch.arange(word_ids.shape[1]).expand_as(word_ids), -1)
    n_units = int(units.max()) + 1 if maskable.any() else 1
    draw = torch.rand((input_ids.shape[0], n_units), generator=generator)
    target = torch.round(settings.probability * maskable.sum(dim=1)).long()
    target = torch.where(maskable.any(dim=1), target.clamp(min=1), 0)
    limit = settings.predictions_per_sequence(input_ids.shape[1])
    chosen_units = choose_words(units, draw, target, limit)
    chosen = chosen_units.gather(1, units.clamp(min=0)) & maskable
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


def choose_words(units: torch.Tensor, draw: torch.Tensor, target: torch.Tensor, limit: int):
    """Which words (sequence x word, bool) each sequence predicts.

    Words are visited in the order of their ``draw`` and taken while their tokens fit in
    the sequence's ``target`` count; one that does not fit is skipped and the next tried
    (BERT's ``create_masked_lm_predictions``). Done in passes: each takes, among the words
    not yet taken that fit alone in what is left, the longest run in draw order that fits.
    A sequence whose words are all longer than its target gets its first word that holds at
    most ``limit`` tokens, so that a sequence with words predicts something.
    """
    sizes = torch.zeros_like(draw, dtype=torch.long).scatter_add_(
        1, units.clamp(min=0), (units >= 0).long()
    )
    order = torch.argsort(torch.where(sizes > 0, draw, torch.inf), dim=1)
    sorted_sizes = sizes.gather(1, order)
    taken = torch.zeros_like(sorted_sizes, dtype=torch.bool)
    left = target.clone()
    while True:
        fits = ~taken & (sorted_sizes > 0) & (sorted_sizes <= left[:, None])
        running = torch.cumsum(torch.where(fits, sorted_sizes, 0), dim=1)
        take = fits & (running <= left[:, None])
        if not take.any():
            break
        taken |= take
        left -= torch.where(take, sorted_sizes, 0).sum(dim=1)
    fits_limit = (sorted_sizes > 0) & (sorted_sizes <= limit)
    empty = (target > 0) & ~taken.any(dim=1) & fits_limit.any(dim=1)
    first = torch.zeros_like(taken).scatter_(1, fits_limit.long().argmax(dim=1, keepdim=True), True)
    taken |= empty[:, None] & first
    return torch.zeros_like(taken).scatter_(1, order, taken)


def prediction_positions(labels: torch.Tensor, count: int) -> torch.Tensor:
    """``count`` distinct positions of every sequence: its predicted ones first, in order,
    then unpredicted ones (whose labels are ``IGNORE_INDEX``, so a loss ignores them)."""
    unpredicted = (labels == IGNORE_INDEX).to(torch.int8)
    return torch.argsort(unpredicted, dim=1, stable=True)[:, :count]
