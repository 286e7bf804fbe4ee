"""Batches from the packed corpus: a seeded order that can resume mid-epoch, padded and masked."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import datasets
import torch

from biocompact.training.masking import MaskingSettings, mask_tokens


@dataclass
class DataPosition:
    """Where the batch stream stands: resuming from it yields exactly the batches still due."""

    epoch: int = 0
    batch: int = 0


class BatchStream:
    """Endless stream of row batches; epoch ``e`` uses a permutation seeded by (seed, e)."""

    def __init__(self, dataset: datasets.Dataset, batch_size: int, seed: int, position: DataPosition):
        if len(dataset) < batch_size:
            raise ValueError(f"the training set has {len(dataset)} sequences, fewer than one batch of {batch_size}")
        self.dataset = dataset
        self.batch_size = batch_size
        self.seed = seed
        self.position = position

    def __iter__(self) -> Iterator[dict]:
        batches_per_epoch = len(self.dataset) // self.batch_size
        while True:
            generator = torch.Generator().manual_seed(self.seed * 100_003 + self.position.epoch)
            order = torch.randperm(len(self.dataset), generator=generator).tolist()
            while self.position.batch < batches_per_epoch:
                start = self.position.batch * self.batch_size
                rows = self.dataset[order[start : start + self.batch_size]]
                self.position.batch += 1
                yield rows
            self.position = DataPosition(self.position.epoch + 1, 0)


def pad(sequences: list[list[int]], value: int) -> torch.Tensor:
    """Right-pad to the longest sequence of the batch."""
    width = max(len(sequence) for sequence in sequences)
    return torch.tensor([sequence + [value] * (width - len(sequence)) for sequence in sequences])


class MaskedBatcher:
    """Turns packed rows into a padded, masked MLM batch."""

    def __init__(self, pad_token_id: int, mask_token_id: int, vocab_size: int, masking: MaskingSettings):
        self.pad_token_id = pad_token_id
        self.mask_token_id = mask_token_id
        self.vocab_size = vocab_size
        self.masking = masking

    def __call__(self, rows: dict, generator: torch.Generator) -> dict[str, torch.Tensor]:
        input_ids = pad(rows["input_ids"], self.pad_token_id)
        word_ids = pad(rows["word_ids"], -1)
        attention_mask = pad([[1] * len(ids) for ids in rows["input_ids"]], 0)
        masked, labels = mask_tokens(
            input_ids, word_ids, self.mask_token_id, self.vocab_size, self.masking, generator
        )
        return {"input_ids": masked, "attention_mask": attention_mask, "labels": labels}
