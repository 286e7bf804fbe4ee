"""One entry of the config's ``pretraining`` section, parsed once into checked settings.

The rule passes the whole entry but its Slurm ``resources`` (``params.settings``, a plain
dict: it travels to torchrun's processes as JSON); the job parses it with
``biocompact.entries.parse_entry``. The class is the entry's one description: the config
schema is generated from its fields (``biocompact.workflow.config_sections`` adds the
resources). A new option is a field here and the code that reads it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated

from pydantic import Field

from biocompact.entries import ENTRY
from biocompact.pretraining.objective_families import (
    DEFAULT_OBJECTIVE,
    OBJECTIVE_FAMILIES,
    objective_for,
)
from biocompact.schema_fields import no_schema_default
from biocompact.training.settings import Architecture, TrainingSettings


@dataclass(frozen=True)
class ElectraOptions:
    """settings of the electra objective"""

    __pydantic_config__ = ENTRY

    generator_fraction: Annotated[float, Field(gt=0, le=1)] = 0.25
    """generator width / discriminator width (ELECTRA paper: 1/4)"""
    discriminator_weight: Annotated[float, Field(gt=0)] = 50.0
    """weight of the replaced-token detection loss (ELECTRA paper: 50)"""


@dataclass(frozen=True, kw_only=True)
class PretrainingSettings(TrainingSettings):
    """How one model is pretrained: its training, family, initialisation and objective."""

    SECTION = "pretraining"

    vocabulary: str
    architecture: Annotated[Architecture, Field(json_schema_extra=no_schema_default)] = field(
        default_factory=Architecture
    )
    init: str = "scratch"
    """scratch, or a checkpoint folder / hub name"""
    family: Annotated[str, Field(json_schema_extra={"enum": list(DEFAULT_OBJECTIVE)})] = "bert"
    """model family: the transformers config class of `architecture` (modernbert: Warner et al.
    2024's rotary, GeGLU, alternating global/local attention encoder; presets
    modernbert-base/-large)"""
    objective: Annotated[
        str | None, Field(json_schema_extra={"enum": [*OBJECTIVE_FAMILIES, None]})
    ] = None
    """mlm (BERT, RoBERTa, ModernBERT), nsp (BERT's MLM + next-sentence prediction; needs
    family bert), electra (replaced-token detection), albert (MLM + sentence order); null: the
    family's own"""
    electra: ElectraOptions = ElectraOptions()

    def __post_init__(self) -> None:
        objective_for(self.objective, self.family)  # raises for an unknown or mismatched pair
