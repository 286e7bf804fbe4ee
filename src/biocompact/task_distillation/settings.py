"""The entries of the config's ``task_distillation`` section, parsed once into checked
settings: transfer sets and experiments. Light (no torch): the workflow parses every
entry when it builds the DAG, so a bad entry stops it before any job runs.

The schema documents every field and fills in its default; a new option is a schema
property, a field here and the code that reads it. Rules pass plain entries (Snakemake's
params trigger compares plain values only), and jobs parse them with ``from_entry``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from biocompact.entries import check_entry
from biocompact.finetuning.settings import task_entry
from biocompact.task_distillation.randomised import QUESTION_STARTERS
from biocompact.taskfiles.formats import TRANSFER_FORMATS
from biocompact.taskfiles.settings import Hyperparameters

# The hyperparameters a classifier of task distillation is trained with (the schema's
# classifier_training, as teacher_training and student_training give them), in its order:
# what a teacher's or student's evaluation records
CLASSIFIER_TRAINING = (
    "epochs",
    "batch_size",
    "learning_rate",
    "max_seq_length",
    "warmup_ratio",
    "weight_decay",
    "bf16",
)
TEXT_FORMAT = "text"


def classifier_training(hyperparameters: Hyperparameters) -> dict[str, Any]:
    """The ``CLASSIFIER_TRAINING`` settings of ``hyperparameters``, as an evaluation records
    them."""
    return {key: getattr(hyperparameters, key) for key in CLASSIFIER_TRAINING}


@dataclass(frozen=True)
class RandomisedSettings:
    """A randomised transfer set (Krishna et al.'s RANDOM queries): new passages sampled from
    the unigram frequencies of the ``source`` passages' words."""

    source: str  # general-domain text file, one passage a line
    examples: int
    seed: int = 0
    questions: bool = False  # (question, passage) pairs for yes/no tasks
    question_starters: tuple[str, ...] = QUESTION_STARTERS


@dataclass(frozen=True)
class TransferSetSettings:
    """One transfer set: read from ``path`` in ``format``, or ``randomised``."""

    name: str
    path: str | None = None
    format: str = TEXT_FORMAT  # text, or a harness format with labels (TRANSFER_FORMATS)
    max_examples: int | None = None  # only the first N examples
    randomised: RandomisedSettings | None = None

    def __post_init__(self) -> None:
        if (self.path is None) == (self.randomised is None):
            raise ValueError(
                f"task_distillation.transfer_sets.{self.name} needs either path or randomised"
            )
        if self.format not in (TEXT_FORMAT, *TRANSFER_FORMATS):
            raise ValueError(
                f"task_distillation.transfer_sets.{self.name}: unknown format {self.format!r}; "
                f"known: {[TEXT_FORMAT, *TRANSFER_FORMATS]}"
            )

    @property
    def labelled(self) -> bool:
        """Whether the set's examples carry their own labels."""
        return self.randomised is None and self.format in TRANSFER_FORMATS

    @classmethod
    def from_entry(cls, name: str, entry: Mapping[str, Any]) -> TransferSetSettings:
        """Parse the entry ``name`` of ``task_distillation.transfer_sets``."""
        where = f"task_distillation.transfer_sets.{name}"
        check_entry(where, entry, cls, not_keys={"name"})  # the name is the key
        randomised = entry.get("randomised")
        if randomised is not None:
            check_entry(f"{where}.randomised", randomised, RandomisedSettings)
            starters = randomised.get("question_starters")
            randomised = RandomisedSettings(
                **{**randomised, **({"question_starters": tuple(starters)} if starters else {})}
            )
        return cls(**{**entry, "name": name, "randomised": randomised})


@dataclass(frozen=True)
class ExperimentSettings:
    """One experiment: ``teacher`` fine-tuned on ``task``, its soft labels on each ``transfer``
    set, ``student`` trained on them (and, ``direct_finetuning``, on each labelled set's own
    labels)."""

    name: str
    task: str  # a task of finetuning.tasks
    teacher: str  # a model of the config
    student: str  # a model of the config
    transfer: tuple[str, ...]  # names of task_distillation.transfer_sets
    teacher_seed: int = 1
    # classifier hyperparameters, independent of finetuning.presets (the schema's default too)
    teacher_training: Mapping[str, Any] = field(default_factory=dict)
    student_training: Mapping[str, Any] = field(default_factory=dict)
    temperature: float = 1.0  # of the teacher's and the student's sigmoid or softmax
    direct_finetuning: bool = True

    def __post_init__(self) -> None:
        if not self.transfer or len(set(self.transfer)) != len(self.transfer):
            raise ValueError(
                f"task_distillation.experiments.{self.name}.transfer "
                "must name distinct transfer sets"
            )
        if self.temperature <= 0:
            raise ValueError(
                f"task_distillation.experiments.{self.name}.temperature must be positive"
            )

    @property
    def teacher_key(self) -> tuple[str, str, int]:
        """The teacher's identity: experiments with the same key share one teacher."""
        return self.teacher, self.task, self.teacher_seed

    def task_entry(self, finetuning: Mapping[str, Any], role: str) -> dict[str, Any]:
        """The experiment's task of the config's ``finetuning`` section as a plain entry
        (``finetuning.settings.task_entry``), trained with the ``teacher`` or ``student``
        ``role``'s hyperparameters (``teacher_training``, ``student_training``)."""
        return task_entry(finetuning, self.task, hyperparameters=getattr(self, f"{role}_training"))

    def direct_transfer(self, transfer_sets: Mapping[str, TransferSetSettings]) -> list[str]:
        """The transfer sets the student is fine-tuned on directly: the labelled ones."""
        if not self.direct_finetuning:
            return []
        return [name for name in self.transfer if transfer_sets[name].labelled]

    @classmethod
    def from_entry(cls, name: str, entry: Mapping[str, Any]) -> ExperimentSettings:
        """Parse the entry ``name`` of ``task_distillation.experiments``."""
        check_entry(f"task_distillation.experiments.{name}", entry, cls, not_keys={"name"})
        return cls(**{**entry, "name": name, "transfer": tuple(entry["transfer"])})


@dataclass(frozen=True)
class EvaluationRuns:
    """The evaluations the summary gathers (rule task_distillation_summary): per run, its
    keys (``summary.RUN_KEYS``; ``transfer`` "" where it does not apply) and the ``path`` of
    its evaluation.json."""

    runs: tuple[Mapping[str, str], ...]
