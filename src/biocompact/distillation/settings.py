"""One entry of the config's ``distillation`` section, parsed once into checked settings.

The rule passes the whole entry but its Slurm ``resources`` (``params.settings``); the job
parses it with ``biocompact.entries.parse_entry``. The classes are the entry's one
description: the config schema is generated from their fields
(``biocompact.workflow.config_sections`` adds the resources). A new option of a method is a
field of ``MethodOptions`` (``distillation.methods``), an entry of its ``DistillationMethod``
(``biocompact.distillation_methods``, with its default) and the code that reads it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated

from pydantic import Field

from biocompact.distillation.methods import DistillationOptions, MethodOptions, method_options
from biocompact.distillation_methods import DEFAULT_METHOD, DISTILLATION_METHODS
from biocompact.schema_fields import no_schema_default
from biocompact.training.settings import Architecture, TrainingSettings


@dataclass(frozen=True, kw_only=True)
class StudentSettings(TrainingSettings):
    """A distillation entry's training, teacher, method and student (the fields before its
    method options)."""

    steps: Annotated[int, Field(ge=0)]
    """optimizer steps; 0: the initialised student as it is (e.g. every other teacher layer,
    untrained)"""
    teacher: str
    """a model of `pretraining`, `distillation` or `external_models` (an external teacher needs
    its own `type: pretrained` vocabulary)"""
    method: Annotated[str, Field(json_schema_extra={"enum": list(DISTILLATION_METHODS)})] = (
        DEFAULT_METHOD
    )
    """one of the distillation methods (src/biocompact/distillation_methods.py: its options and
    their defaults, its paper; docs/distillation.md)"""
    student_init: str = "teacher_layers"
    """teacher_layers, random (a BERT of `student_architecture`; a ModernBERT for a ModernBERT
    teacher), a model of this config, or a checkpoint folder / hub name"""
    student_layers: list[Annotated[int, Field(ge=0)]] | None = None
    student_architecture: Annotated[Architecture, Field(json_schema_extra=no_schema_default)] = (
        field(default_factory=Architecture)
    )


@dataclass(frozen=True, kw_only=True)
class DistillationSettings(MethodOptions, StudentSettings):
    """How one student is distilled: training, teacher, method, student initialisation and
    the method's options."""

    SECTION = "distillation"

    def __post_init__(self) -> None:
        method_options(self.method, self.written_options())  # only options the method reads
        if self.student_layers is not None and self.student_init != "teacher_layers":
            raise ValueError(
                "student_layers is used with student_init teacher_layers only, "
                f"not {self.student_init!r}"
            )
        if self.student_architecture and self.student_init != "random":
            raise ValueError(
                "student_architecture is used with student_init random only, "
                f"not {self.student_init!r}"
            )

    @property
    def options(self) -> DistillationOptions:
        """The method's options, its defaults filled in where the entry leaves them unset."""
        return method_options(self.method, self.written_options())
