"""The config's ``efficiency`` section and the efficiency rule's settings, parsed from its
params. Light (no torch): the section's class describes the config when the DAG is built,
and compression's settings build on ``Timing``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated

from pydantic import Field

from biocompact.entries import ENTRY


@dataclass(frozen=True)
class EfficiencySettings:
    """what the fine-tuned models (and compression's formats) are timed on: every batch size
    with every sequence length, repeats times"""

    __pydantic_config__ = ENTRY
    SECTION = "efficiency"

    batch_sizes: tuple[Annotated[int, Field(ge=1)], ...] = (1, 32)
    sequence_lengths: tuple[Annotated[int, Field(ge=8)], ...] = (128, 512)
    repeats: Annotated[int, Field(ge=1)] = 10


@dataclass(frozen=True)
class Timing:
    """What models are timed on (the config's ``efficiency`` section, ``EfficiencySettings``):
    every batch size with every sequence length, ``repeats`` times."""

    batch_sizes: tuple[int, ...]
    sequence_lengths: tuple[int, ...]
    repeats: int


@dataclass(frozen=True)
class EfficiencyBenchmark(Timing):
    """The fine-tuned models measured together, each loaded from its ``model_paths`` entry
    (a folder or a Hub name)."""

    models: tuple[str, ...]  # the order of the rule's results files
    model_paths: Mapping[str, str]
