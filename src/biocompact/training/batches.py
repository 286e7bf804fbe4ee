"""Batches from the packed corpus: a seeded order that can resume mid-epoch, padded and masked.

A batch has one shape for the whole run: every sequence padded to the corpus's longest
(``MaskedBatcher.length``) and a fixed number of predicted positions per sequence
(``masked_positions``, ``masking.prediction_positions``), so that the training step can be
compiled once (``biocompact.training.step``). ``documents`` numbers the documents of each
sequence (0, 1, ... from its ``document_starts``; -1 at padding) for the attention mask
that keeps them apart (``biocompact.models.documents``).

``MaskedBatches`` makes micro-batch ``k`` of a run as a pure function of ``k`` (rows from
``BatchOrder``, a masking generator seeded by ``k``), so the same batches come out
whether the training thread makes them one by one or ``DataLoader`` worker processes make
them ahead (``training.data_workers``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import datasets
import numpy as np
import torch

from biocompact.training.masking import IGNORE_INDEX, mask_tokens, prediction_positions
from biocompact.training.settings import MaskingSettings

# Columns that BatchOrder adds to every row batch: the rows' dataset indices and epoch.
INDEX, EPOCH = "_index", "_epoch"
STATIC_MASKING_SEED = 12345  # BERT's create_pretraining_data default random_seed
PREFETCH_BATCHES_PER_WORKER = 4


@dataclass
class DataPosition:
    """Where the batch order stands (epoch, batch in epoch); saved in checkpoints."""

    epoch: int = 0
    batch: int = 0


class BatchOrder:
    """The rows of every batch; epoch ``e`` uses a permutation seeded by (seed, e).

    ``batch_size`` rows make one (global) batch; with several processes, process ``rank``
    gets every ``world_size``-th of them, so the effective batch does not depend on how
    many GPUs share the work. The epoch's permutation is held as a NumPy array of 4 bytes
    a row (8 above 2**31 rows), not a Python list (about 40 bytes a row, in every process
    and every DataLoader worker).
    """

    def __init__(
        self,
        dataset: datasets.Dataset,
        batch_size: int,
        seed: int,
        rank: int = 0,
        world_size: int = 1,
    ):
        if len(dataset) < batch_size:
            raise ValueError(
                f"the training set has {len(dataset)} sequences, fewer than one batch of {batch_size}"
            )
        if batch_size % world_size:
            raise ValueError(
                f"batch_size {batch_size} is not divisible by the {world_size} processes"
            )
        self.dataset = dataset
        self.batch_size = batch_size
        self.seed = seed
        self.rank = rank
        self.world_size = world_size
        self.batches_per_epoch = len(dataset) // batch_size
        self._index_type = np.int32 if len(dataset) < 2**31 else np.int64
        self._order: tuple[int, np.ndarray] = (-1, np.empty(0, self._index_type))

    def position_after(self, batches: int) -> DataPosition:
        """Where the order stands after ``batches`` batches from the start of training."""
        return DataPosition(batches // self.batches_per_epoch, batches % self.batches_per_epoch)

    def rows(self, position: DataPosition) -> dict:
        """This process's rows of the batch at ``position`` (with their indices and epoch)."""
        if self._order[0] != position.epoch:
            generator = torch.Generator().manual_seed(self.seed * 100_003 + position.epoch)
            order = torch.randperm(len(self.dataset), generator=generator).numpy()
            self._order = (position.epoch, order.astype(self._index_type))
        start = position.batch * self.batch_size
        batch = self._order[1][start : start + self.batch_size]
        indices = batch[self.rank :: self.world_size].tolist()
        rows = self.dataset[indices]
        rows[INDEX] = indices
        rows[EPOCH] = [position.epoch] * len(indices)
        return rows


class MaskedBatches(torch.utils.data.Dataset):
    """Micro-batch ``k`` of a run (``k`` = step x gradient accumulation + micro-step), masked.

    A pure function of ``k``: the rows at ``order.position_after(k)``, masked with a generator
    seeded by ``masking_seed + k``; picklable, so ``DataLoader`` workers can make it.
    """

    def __init__(self, order: BatchOrder, batcher: Callable, masking_seed: int, end: int):
        self.order = order
        self.batcher = batcher
        self.masking_seed = masking_seed
        self.end = end

    def __len__(self) -> int:
        return self.end

    def __getitem__(self, k: int) -> dict[str, torch.Tensor]:
        generator = torch.Generator().manual_seed(self.masking_seed + k)
        return self.batcher(self.order.rows(self.order.position_after(k)), generator)

    def iterate(
        self, start: int, workers: int, pin_memory: bool
    ) -> Iterator[dict[str, torch.Tensor]]:
        """Batches ``start``, ``start + 1``, ... in order: made here or ahead by ``workers``."""
        if workers == 0:
            return (self[k] for k in range(start, self.end))
        loader = torch.utils.data.DataLoader(
            self,
            batch_size=None,
            sampler=range(start, self.end),
            num_workers=workers,
            pin_memory=pin_memory,
            prefetch_factor=PREFETCH_BATCHES_PER_WORKER,
            # its workers' seeds must not draw from the global RNG (dropout's)
            generator=torch.Generator(),
        )
        return iter(loader)


def pad(sequences: list[list[int]], value: int, width: int = 0) -> torch.Tensor:
    """Right-pad to ``width``, or to the longest sequence of the batch if that is longer."""
    width = max([width, *map(len, sequences)])
    return torch.tensor([sequence + [value] * (width - len(sequence)) for sequence in sequences])


def document_numbers(lengths: list[int], starts: list[list[int]], width: int) -> torch.Tensor:
    """Each position's document within its sequence (0, 1, ...; a new one at every start),
    -1 at the padding after the sequence's ``length`` tokens."""
    numbers = []
    for length, row_starts in zip(lengths, starts):
        row = [0] * length + [-1] * (width - length)
        for start in row_starts:
            row[start:length] = [value + 1 for value in row[start:length]]
        numbers.append(row)
    return torch.tensor(numbers)


class MaskedBatcher:
    """Turns packed rows into a padded, masked MLM batch of a fixed shape.

    Every batch is ``length`` tokens wide (or as wide as its longest row, if longer) and
    has ``masked_positions``: ``predictions_per_sequence(length)`` positions a sequence,
    its predicted ones first. Rows without ``document_starts`` hold one document each.
    Dynamic masking draws from the caller's generator. With a ``duplication_factor`` and
    rows from ``BatchOrder``, each row's mask is a function of (row, epoch mod factor).
    """

    def __init__(
        self,
        pad_token_id: int,
        mask_token_id: int,
        vocab_size: int,
        masking: MaskingSettings,
        length: int = 0,
    ):
        self.pad_token_id = pad_token_id
        self.mask_token_id = mask_token_id
        self.vocab_size = vocab_size
        self.masking = masking
        self.length = length

    def __call__(self, rows: dict, generator: torch.Generator) -> dict[str, torch.Tensor]:
        input_ids = pad(rows["input_ids"], self.pad_token_id, self.length)
        lengths = [len(ids) for ids in rows["input_ids"]]
        width = input_ids.shape[1]
        attention_mask = pad([[1] * length for length in lengths], 0, width)
        starts = rows.get("document_starts") or [[]] * len(lengths)
        if self.masking.duplication_factor and INDEX in rows:
            masked, labels = self._static_masks(rows, width)
        else:
            masked, labels = mask_tokens(
                input_ids,
                pad(rows["word_ids"], -1, width),
                self.mask_token_id,
                self.vocab_size,
                self.masking,
                generator,
            )
        return {
            "input_ids": masked,
            "attention_mask": attention_mask,
            "labels": labels,
            "masked_positions": prediction_positions(
                labels, self.masking.predictions_per_sequence(width)
            ),
            "documents": document_numbers(lengths, starts, width),
        }

    def _static_masks(self, rows: dict, width: int) -> tuple[torch.Tensor, torch.Tensor]:
        """Mask every row alone with a generator seeded by (row index, copy)."""
        factor = self.masking.duplication_factor
        masked, labels = [], []
        for ids, words, index, epoch in zip(
            rows["input_ids"], rows["word_ids"], rows[INDEX], rows[EPOCH]
        ):
            generator = torch.Generator().manual_seed(
                STATIC_MASKING_SEED + index * factor + epoch % factor
            )
            row_masked, row_labels = mask_tokens(
                torch.tensor([ids]),
                torch.tensor([words]),
                self.mask_token_id,
                self.vocab_size,
                self.masking,
                generator,
            )
            masked.append(row_masked[0].tolist())
            labels.append(row_labels[0].tolist())
        return pad(masked, self.pad_token_id, width), pad(labels, IGNORE_INDEX, width)
