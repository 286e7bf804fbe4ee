"""The efficiency rule's settings, parsed from its params. Light (no torch): compression's
settings build on ``Timing``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Timing:
    """What models are timed on (the config's ``efficiency`` section): every batch size with
    every sequence length, ``repeats`` times."""

    batch_sizes: tuple[int, ...]
    sequence_lengths: tuple[int, ...]
    repeats: int


@dataclass(frozen=True)
class EfficiencyBenchmark(Timing):
    """The fine-tuned models measured together, each loaded from its ``model_paths`` entry
    (a folder or a Hub name)."""

    models: tuple[str, ...]  # the order of the rule's results files
    model_paths: Mapping[str, str]
