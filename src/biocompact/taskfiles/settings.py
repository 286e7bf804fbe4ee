"""A task of the config's ``finetuning.tasks``, as every stage that reads a task's files
takes it (fine-tuning, dataset preparation, the corpus's decontamination, task
distillation, compression, the report): its data (``FinetuningTask``) and its training
(``Hyperparameters``), checked on parsing.

Light (no torch): the workflow resolves every task when it builds the DAG
(``finetuning/settings.py``: ``task_entry``), so a bad entry stops it before any job runs.
The schema documents every field and fills in its default
(tests/taskfiles/test_taskfiles_settings.py checks that fields and defaults agree); a new
hyperparameter is a schema property, a field of ``Hyperparameters`` and the line that reads
it. Rules pass plain entries (Snakemake's params trigger compares plain values only), and
jobs parse them with ``FinetuningTask.from_entry``.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from biocompact.entries import check_entry

# The settings a preset's ``grid`` may vary, in the order a grid point is named.
GRID_KEYS = ("learning_rate", "batch_size", "epochs")
# What a hoc_tsv task's examples are (FinetuningTask.unit): whole abstracts, as BLURB, or
# BLUE's sentences.
UNITS = ("abstract", "sentence")
# How a sequence-level model pools its token states (finetuning/pooling.py).
POOLINGS = ("auto", "cls", "mean")
# multi-label: the positives' weight in the loss (none, or auto: negatives / positives).
POS_WEIGHTS = ("none", "auto")
# the families whose model reads one pooled vector of the sequence (pooling applies)
TOKEN_LEVEL_FAMILIES = ("ner", "qa_factoid")


@dataclass(frozen=True)
class Hyperparameters:
    """How a model is trained on a task: a preset with the task's and the model's overrides
    (or task distillation's ``teacher_training``/``student_training``)."""

    epochs: float = 3
    batch_size: int = 16
    learning_rate: float = 5e-5
    max_seq_length: int = 128
    warmup_ratio: float = 0.1
    weight_decay: float = 0.01
    eval_steps: int | None = None  # evaluate on dev every N steps (None: after each epoch)
    grid: Mapping[str, list[float]] = field(default_factory=dict)  # values of GRID_KEYS tried
    doc_stride: int = 128  # QA: overlap of the windows over a long snippet
    max_answer_length: int = 30  # QA: longest answer span, in tokens
    n_best: int = 20  # QA: start and end positions considered per window
    intermediate_epochs: float = 1  # epochs on a task's intermediate file
    length_grouped_batches: bool = False  # training batches of examples of similar length
    bf16: bool = True  # where the device computes bf16 natively
    threshold: float = 0.5  # multi-label: the probability above which a label is predicted
    pooling: str = "auto"  # sequence-level families: cls, mean, auto (the checkpoint's)
    head_learning_rate: float | None = None  # the task head's own (None: learning_rate)
    pos_weight: str = "none"  # multi-label: auto weighs each label's positives (BCE pos_weight)

    def __post_init__(self) -> None:
        if self.pooling not in POOLINGS:
            raise ValueError(f"pooling must be one of {list(POOLINGS)}, got {self.pooling!r}")
        if self.pos_weight not in POS_WEIGHTS:
            raise ValueError(
                f"pos_weight must be one of {list(POS_WEIGHTS)}, got {self.pos_weight!r}"
            )
        if self.head_learning_rate is not None and not self.head_learning_rate > 0:
            raise ValueError(f"head_learning_rate must be > 0, got {self.head_learning_rate}")
        if not 0 < self.threshold < 1:
            raise ValueError(f"threshold must be in (0, 1), got {self.threshold}")
        if not 0 <= self.warmup_ratio < 1:
            # Trainer reads warmup_steps >= 1 as a number of steps, not a ratio
            raise ValueError(f"warmup_ratio must be in [0, 1), got {self.warmup_ratio}")
        unknown = sorted(set(self.grid) - set(GRID_KEYS))
        if unknown:
            raise ValueError(f"grid: {unknown} cannot vary; known: {list(GRID_KEYS)}")

    def grid_points(self) -> list[Hyperparameters]:
        """Every combination of the ``grid`` values over the other settings (these settings
        without a grid when it is empty); grid order: the keys as listed."""
        grid = {key: values for key, values in self.grid.items() if values}
        points: list[dict[str, Any]] = [
            dict(zip(grid, values)) for values in itertools.product(*grid.values())
        ]
        return [replace(self, grid={}, **point) for point in points]

    def as_record(self) -> dict[str, Any]:
        """The settings of one trained point, as metrics.json records them (no ``grid``)."""
        record = asdict(self)
        del record["grid"]
        return record

    @classmethod
    def from_entry(
        cls, entry: Mapping[str, Any], where: str = "hyperparameters"
    ) -> Hyperparameters:
        """Parse the settings of a preset with its overrides (errors name ``where``)."""
        check_entry(where, entry, cls)
        try:
            return cls(**{**entry, "grid": dict(entry.get("grid") or {})})
        except ValueError as error:
            raise ValueError(f"{where}: {error}") from None


@dataclass(frozen=True)
class FinetuningTask:
    """One task of ``finetuning.tasks``: its data, scoring and (for training) hyperparameters.

    ``hyperparameters`` is None for a task read for its data alone (the majority baseline,
    whose result does not depend on them)."""

    name: str
    family: str  # ner, re, dc, nli, qa_factoid, qa_yesno, similarity
    format: str  # the files' format (readers.py)
    train: str
    test: str
    preset: str | None = None  # the name in finetuning.presets the hyperparameters start from
    hyperparameters: Hyperparameters | None = None
    dataset: str | None = None  # a registered dataset, already filled in by ``task_entry``
    dev: str | None = None  # None: carved from train
    folds: tuple[str | int, ...] | None = None  # cross-validation: {fold} in the split paths
    golden: str | None = None  # BioASQ golden answers of the test set
    intermediate: str | None = None  # a file in the task's format to fine-tune on first
    max_train_examples: int | None = None
    max_dev_examples: int | None = None
    max_test_examples: int | None = None
    metric: str | None = None  # the primary metric (None: the family's default)
    negative_label: str | None = None  # left out of micro-F1
    positive_labels: tuple[str, ...] | None = None
    label_all_subtokens: bool = False  # NER: train on every sub-token
    label_names: Mapping[str, str] = field(default_factory=dict)  # a saved model's label names
    unit: str = "abstract"  # hoc_tsv: train and score abstracts (BLURB) or sentences (BLUE)

    def __post_init__(self) -> None:
        if self.unit not in UNITS:
            raise ValueError(f"unit must be one of {list(UNITS)}, got {self.unit!r}")
        if self.unit != "abstract" and self.format != "hoc_tsv":
            raise ValueError(
                f"unit: {self.unit} applies to hoc_tsv files only (this task's format is "
                f"{self.format})"
            )
        training = self.hyperparameters
        if training is None:
            return
        if training.pos_weight != "none" and self.format != "hoc_tsv":
            raise ValueError(
                f"pos_weight: {training.pos_weight} applies to multi-label (hoc_tsv) tasks only"
            )
        if training.pooling == "mean" and self.family in TOKEN_LEVEL_FAMILIES:
            raise ValueError(
                f"pooling: mean applies to sequence-level families, not {self.family} (its "
                "model reads every token)"
            )

    @property
    def training(self) -> Hyperparameters:
        """The hyperparameters of a task read for training."""
        if self.hyperparameters is None:
            raise ValueError(f"task {self.name!r} was read without its hyperparameters")
        return self.hyperparameters

    def as_entry(self) -> dict[str, Any]:
        """The task as a plain entry, every field and hyperparameter given, which
        ``from_entry`` parses back to an equal task."""
        entry = asdict(self)
        for key in ("folds", "positive_labels"):
            if entry[key] is not None:
                entry[key] = list(entry[key])
        return entry

    @classmethod
    def from_entry(cls, entry: Mapping[str, Any]) -> FinetuningTask:
        """Parse a task entry (``task_entry``'s, or a test's), its ``hyperparameters``
        resolved into all its settings when present."""
        where = f"config: finetuning.tasks.{entry.get('name')}"
        check_entry(where, entry, cls)
        hyperparameters = entry.get("hyperparameters")
        parsed = {
            **entry,
            "hyperparameters": None
            if hyperparameters is None
            else Hyperparameters.from_entry(hyperparameters, f"{where}.hyperparameters"),
            "folds": tuple(entry["folds"]) if entry.get("folds") else None,
            "positive_labels": tuple(entry["positive_labels"])
            if entry.get("positive_labels")
            else None,
            "label_names": dict(entry.get("label_names") or {}),
        }
        try:
            return cls(**parsed)
        except ValueError as error:
            raise ValueError(f"{where}: {error}") from None
