"""Batches from the packed corpus: a seeded order that can resume mid-epoch, padded and masked."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import datasets
import torch

from biocompact.training.masking import IGNORE_INDEX, MaskingSettings, mask_tokens

# Columns that BatchStream adds to every row batch: the rows' dataset indices and epoch.
INDEX, EPOCH = "_index", "_epoch"
STATIC_MASKING_SEED = 12345  # BERT's create_pretraining_data default random_seed


@dataclass
class DataPosition:
    """Where the batch stream stands: resuming from it yields exactly the batches still due."""

    epoch: int = 0
    batch: int = 0


class BatchStream:
    """Endless stream of row batches; epoch ``e`` uses a permutation seeded by (seed, e).

    ``batch_size`` rows make one (global) batch; with several processes, process ``rank``
    gets every ``world_size``-th of them, so the effective batch does not depend on how
    many GPUs share the work.
    """

    def __init__(
        self,
        dataset: datasets.Dataset,
        batch_size: int,
        seed: int,
        position: DataPosition,
        rank: int = 0,
        world_size: int = 1,
    ):
        if len(dataset) < batch_size:
            raise ValueError(f"the training set has {len(dataset)} sequences, fewer than one batch of {batch_size}")
        if batch_size % world_size:
            raise ValueError(f"batch_size {batch_size} is not divisible by the {world_size} processes")
        self.dataset = dataset
        self.batch_size = batch_size
        self.seed = seed
        self.position = position
        self.rank = rank
        self.world_size = world_size

    def __iter__(self) -> Iterator[dict]:
        batches_per_epoch = len(self.dataset) // self.batch_size
        while True:
            generator = torch.Generator().manual_seed(self.seed * 100_003 + self.position.epoch)
            order = torch.randperm(len(self.dataset), generator=generator).tolist()
            while self.position.batch < batches_per_epoch:
                start = self.position.batch * self.batch_size
                indices = order[start : start + self.batch_size][self.rank :: self.world_size]
                rows = self.dataset[indices]
                rows[INDEX] = indices
                rows[EPOCH] = [self.position.epoch] * len(indices)
                self.position.batch += 1
                yield rows
            self.position = DataPosition(self.position.epoch + 1, 0)


def pad(sequences: list[list[int]], value: int) -> torch.Tensor:
    """Right-pad to the longest sequence of the batch."""
    width = max(len(sequence) for sequence in sequences)
    return torch.tensor([sequence + [value] * (width - len(sequence)) for sequence in sequences])


class MaskedBatcher:
    """Turns packed rows into a padded, masked MLM batch.

    Dynamic masking draws from the caller's generator. With a ``duplication_factor`` and
    rows from ``BatchStream``, each row's mask is a function of (row, epoch mod factor).
    """

    def __init__(self, pad_token_id: int, mask_token_id: int, vocab_size: int, masking: MaskingSettings):
        self.pad_token_id = pad_token_id
        self.mask_token_id = mask_token_id
        self.vocab_size = vocab_size
        self.masking = masking

    def __call__(self, rows: dict, generator: torch.Generator) -> dict[str, torch.Tensor]:
        input_ids = pad(rows["input_ids"], self.pad_token_id)
        attention_mask = pad([[1] * len(ids) for ids in rows["input_ids"]], 0)
        if self.masking.duplication_factor and INDEX in rows:
            masked, labels = self._static_masks(rows)
        else:
            masked, labels = mask_tokens(
                input_ids, pad(rows["word_ids"], -1), self.mask_token_id, self.vocab_size, self.masking, generator
            )
        return {"input_ids": masked, "attention_mask": attention_mask, "labels": labels}

    def _static_masks(self, rows: dict) -> tuple[torch.Tensor, torch.Tensor]:
        """Mask every row alone with a generator seeded by (row index, copy)."""
        factor = self.masking.duplication_factor
        masked, labels = [], []
        for ids, words, index, epoch in zip(rows["input_ids"], rows["word_ids"], rows[INDEX], rows[EPOCH]):
            generator = torch.Generator().manual_seed(STATIC_MASKING_SEED + index * factor + epoch % factor)
            row_masked, row_labels = mask_tokens(
                torch.tensor([ids]), torch.tensor([words]), self.mask_token_id, self.vocab_size, self.masking, generator
            )
            masked.append(row_masked[0].tolist())
            labels.append(row_labels[0].tolist())
        return pad(masked, self.pad_token_id), pad(labels, IGNORE_INDEX)
