"""The entries of the config's ``task_distillation`` section, parsed once into checked
settings: transfer sets and experiments. Light (no torch): the workflow parses every
entry when it builds the DAG, so a bad entry stops it before any job runs.

The classes are the entries' one description: the config schema is generated from their
fields, defaults, constraints and docstrings; a new option is a field here and the code that
reads it. Rules pass plain entries (Snakemake's params trigger compares plain values only),
and jobs parse them with ``biocompact.entries.parse_entry``, an entry's name (its key in the
section) passed in with it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Annotated, Any

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from biocompact.entries import ENTRY
from biocompact.finetuning.settings import task_entry
from biocompact.schema_fields import UNIQUE_ITEMS, left_out_or_given
from biocompact.task_distillation.randomised import QUESTION_STARTERS
from biocompact.taskfiles.formats import TRANSFER_FORMATS
from biocompact.taskfiles.settings import (
    Count,
    Hyperparameters,
    NonNegative,
    Positive,
    Ratio,
    SequenceLength,
)

TEXT_FORMAT = "text"
# The names of transfer sets and experiments (their keys; folder names of their outputs)
NAME_PATTERN = "^[A-Za-z0-9_.-]+$"


@dataclass(frozen=True)
class ClassifierTraining:
    """hyperparameters of a classifier trained without dev selection (task-specific
    distillation); the teacher is chosen on dev like every fine-tuning run"""

    __pydantic_config__ = ENTRY

    epochs: Positive = 3
    batch_size: Count = 16
    learning_rate: Positive = 5e-5
    max_seq_length: SequenceLength = 128
    warmup_ratio: Ratio = 0.1
    weight_decay: NonNegative = 0.01
    bf16: bool = True
    """bf16 autocast where the device computes bf16 natively (as the fine-tuning presets'
    bf16)"""


# The hyperparameters a classifier of task distillation is trained with, in their order:
# what a teacher's or student's evaluation records
CLASSIFIER_TRAINING = tuple(item.name for item in fields(ClassifierTraining))


def classifier_training(hyperparameters: Hyperparameters) -> dict[str, Any]:
    """The ``CLASSIFIER_TRAINING`` settings of ``hyperparameters``, as an evaluation records
    them."""
    return {key: getattr(hyperparameters, key) for key in CLASSIFIER_TRAINING}


@dataclass(frozen=True)
class RandomisedSettings:
    """A randomised transfer set (Krishna et al.'s RANDOM queries): new passages sampled from
    the unigram frequencies of the ``source`` passages' words."""

    __pydantic_config__ = ENTRY

    source: str
    """general-domain text file, one passage a line"""
    examples: Count
    seed: int = 0
    questions: bool = False
    """make (question, passage) pairs for yes/no tasks: a question word then words sampled
    from the passage"""
    question_starters: Annotated[
        tuple[Annotated[str, Field(min_length=1)], ...], Field(min_length=1)
    ] = QUESTION_STARTERS


@dataclass(frozen=True)
class TransferSetSettings:
    """either path (and format) or randomised"""

    __pydantic_config__ = ENTRY

    name: SkipJsonSchema[str]  # its key in task_distillation.transfer_sets (the caller's)
    path: Annotated[str | None, Field(json_schema_extra=left_out_or_given)] = None
    """a file read as format; it may be an output of this workflow (e.g. the corpus's
    sentences)"""
    format: Annotated[str, Field(json_schema_extra={"enum": [TEXT_FORMAT, *TRANSFER_FORMATS]})] = (
        TEXT_FORMAT
    )
    """text: one passage a line (.gz too), unlabelled; else a harness format whose labels the
    direct fine-tuning baseline uses"""
    max_examples: Count | None = None
    """only the first N examples"""
    randomised: Annotated[RandomisedSettings | None, Field(json_schema_extra=left_out_or_given)] = (
        None
    )
    """BioXtract's BoolQ-Random: a vocabulary from the source's passages, new passages by
    unigram-frequency sampling"""

    def __post_init__(self) -> None:
        if (self.path is None) == (self.randomised is None):
            raise ValueError(
                f"task_distillation.transfer_sets.{self.name} needs either path or randomised"
            )

    @property
    def labelled(self) -> bool:
        """Whether the set's examples carry their own labels."""
        return self.randomised is None and self.format in TRANSFER_FORMATS


@dataclass(frozen=True, kw_only=True)
class ExperimentSettings:
    """One experiment: ``teacher`` fine-tuned on ``task``, its soft labels on each ``transfer``
    set, ``student`` trained on them (and, ``direct_finetuning``, on each labelled set's own
    labels)."""

    __pydantic_config__ = ENTRY

    name: SkipJsonSchema[str]  # its key in task_distillation.experiments (the caller's)
    task: str
    """a task of finetuning.tasks: re, single-label dc, nli or qa_yesno, without folds"""
    teacher: str
    """a model of this config, fine-tuned on the task (on its dev set's choice) into the
    teacher"""
    teacher_seed: int = 1
    teacher_training: ClassifierTraining = ClassifierTraining()
    """the teacher's fine-tuning hyperparameters (independent of finetuning.presets)"""
    student: str
    """a model of this config (e.g. a distilled compact model or a general one)"""
    student_training: ClassifierTraining = ClassifierTraining()
    """the students' training on transfer data (BioXtract: lr 8e-6, ~1000 steps of 12)"""
    transfer: Annotated[tuple[str, ...], Field(min_length=1), UNIQUE_ITEMS]
    """names of task_distillation.transfer_sets"""
    temperature: Positive = 1.0
    """of the teacher's and the student's sigmoid (binary) or softmax"""
    direct_finetuning: bool = True
    """BioXtract, section 4.2 baseline: the student fine-tuned on the labels of each labelled
    (harness-format) transfer set"""

    @property
    def teacher_key(self) -> tuple[str, str, int]:
        """The teacher's identity: experiments with the same key share one teacher."""
        return self.teacher, self.task, self.teacher_seed

    def task_entry(self, config: Mapping[str, Any], role: str) -> dict[str, Any]:
        """The experiment's task of the validated ``config``'s ``finetuning`` section as a
        plain entry (``finetuning.settings.task_entry``), trained with the ``teacher`` or
        ``student`` ``role``'s hyperparameters (``teacher_training``, ``student_training``) as
        the config's entry gives them: in its order, which the rules' params keep."""
        training = config["task_distillation"]["experiments"][self.name][f"{role}_training"]
        return task_entry(config["finetuning"], self.task, hyperparameters=training)

    def direct_transfer(self, transfer_sets: Mapping[str, TransferSetSettings]) -> list[str]:
        """The transfer sets the student is fine-tuned on directly: the labelled ones."""
        if not self.direct_finetuning:
            return []
        return [name for name in self.transfer if transfer_sets[name].labelled]


@dataclass(frozen=True)
class EvaluationRuns:
    """The evaluations the summary gathers (rule task_distillation_summary): per run, its
    keys (``summary.RUN_KEYS``; ``transfer`` "" where it does not apply) and the ``path`` of
    its evaluation.json."""

    runs: tuple[Mapping[str, str], ...]
