"""A task of the config's ``finetuning.tasks``: as the config writes it (``TaskEntry``), and
resolved, as every stage that reads a task's files takes it (fine-tuning, dataset
preparation, the corpus's decontamination, task distillation, compression, the report): its
data (``FinetuningTask``) and its training (``Hyperparameters``, also a preset of
``finetuning.presets``).

Light (no torch): the workflow resolves every task when it builds the DAG
(``finetuning/settings.py``: ``task_entry``), so a bad entry stops it before any job runs.
The classes are the entries' one description: the config schema is generated from their
fields, defaults, constraints and docstrings; a new hyperparameter is a field of
``Hyperparameters`` and the line that reads it. Rules pass plain entries (Snakemake's params
trigger compares plain values only), and jobs parse them with
``biocompact.entries.parse_entry``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from typing import Annotated, Any, Literal, get_args

from pydantic import ConfigDict, Field, WithJsonSchema
from pydantic.json_schema import SkipJsonSchema

from biocompact.entries import ENTRY
from biocompact.schema_fields import left_out_or_given
from biocompact.taskfiles.formats import FAMILY_NAMES, FORMAT_NAMES

# The settings a preset's ``grid`` may vary, in the order a grid point is named.
GRID_KEYS = ("learning_rate", "batch_size", "epochs")
# How a sequence-level model pools its token states (finetuning/pooling.py).
Pooling = Literal["auto", "cls", "mean"]
POOLINGS = get_args(Pooling)
# the families whose model reads one pooled vector of the sequence (pooling applies)
TOKEN_LEVEL_FAMILIES = ("ner", "qa_factoid")

# The constraints of the training settings, shared with task distillation's classifier
# training (``task_distillation.settings.ClassifierTraining``)
Positive = Annotated[float, Field(gt=0)]
Count = Annotated[int, Field(ge=1)]
SequenceLength = Annotated[int, Field(ge=8)]
Ratio = Annotated[float, Field(ge=0, lt=1)]
NonNegative = Annotated[float, Field(ge=0)]


@dataclass(frozen=True)
class Hyperparameters:
    """How a model is trained on a task: a preset with the task's and the model's overrides."""

    __pydantic_config__ = ENTRY

    epochs: Positive = 3
    batch_size: Count = 16
    learning_rate: Positive = 5e-5
    max_seq_length: SequenceLength = 128
    warmup_ratio: Ratio = 0.1  # Trainer reads warmup_steps >= 1 as steps, not a ratio
    weight_decay: NonNegative = 0.01
    eval_steps: Count | None = None
    """evaluate on dev every N optimizer steps (null: after each epoch); the best evaluation
    is kept"""
    # a mapping, not a class: its points are tried in the order of its keys
    grid: Annotated[
        dict[str, list[float]],
        Field(
            json_schema_extra={
                "additionalProperties": False,
                "properties": {
                    "learning_rate": {
                        "type": "array",
                        "items": {"type": "number", "exclusiveMinimum": 0},
                    },
                    "batch_size": {"type": "array", "items": {"type": "integer", "minimum": 1}},
                    "epochs": {"type": "array", "items": {"type": "number", "exclusiveMinimum": 0}},
                },
            }
        ),
    ] = field(default_factory=dict)
    """values tried in every combination, the best chosen on dev (Fang et al. 2023:
    learning_rate [1e-5, 3e-5, 5e-5] x batch_size [8, 16, 32])"""
    doc_stride: Count = 128
    """QA: overlap of the windows over a long snippet, in tokens"""
    max_answer_length: Count = 30
    """QA: longest answer span, in tokens"""
    n_best: Count = 20
    """QA: start and end positions considered per window"""
    intermediate_epochs: Positive = 1
    """epochs on a task's intermediate file"""
    length_grouped_batches: bool = False
    """training batches of examples of similar length (less padding, faster; changes the
    batches, so scores move within seed noise)"""
    bf16: bool = True
    """bf16 autocast where the device computes bf16 natively (a GPU with bf16, a CPU with
    AVX512-BF16 or AMX); fp32 elsewhere or when false"""
    threshold: Annotated[float, Field(gt=0, lt=1)] = 0.5
    """multi-label classification (HoC): a label is predicted where its sigmoid probability
    exceeds this"""
    pooling: Pooling = "auto"
    """sequence-level families (dc, re, nli, similarity, qa_yesno): the vector the classifier
    reads. cls: the [CLS] pooler (BERT's dense layer and tanh; ModernBERT's [CLS] state);
    mean: the attention-mask-weighted mean of the last hidden states (sentence-transformers,
    SetFit); auto: mean for a checkpoint whose sentence-transformers modules.json lists a
    Pooling module with pooling_mode_mean_tokens (all-MiniLM-L6-v2) or fine-tuned here with
    mean pooling, cls otherwise"""
    head_learning_rate: Positive | None = None
    """the learning rate of the task head (the parameters outside the base model: the
    classifier) in its own optimizer group, with the same warm-up and decay; null:
    learning_rate"""
    pos_weight: Literal["none", "auto"] = "none"
    """multi-label classification (HoC): auto weighs each label's positive term of the loss by
    its negatives / positives in the training split (PyTorch's BCEWithLogitsLoss pos_weight); a
    label without positives weighs 1"""

    def __post_init__(self) -> None:
        # a task's own grid (its hyperparameters) is checked here, not by the schema
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


# a field a registered dataset sets when the task leaves it out: required of a task without
# a dataset (TaskEntry's anyOf), never null
FROM_DATASET = Field(json_schema_extra=left_out_or_given)


def _declared(names: tuple[str, ...]) -> Callable[[dict[str, Any]], None]:
    """``json_schema_extra`` of a task's ``family`` or ``format``: one of the declared
    ``names`` (``taskfiles/formats.py``), else as ``FROM_DATASET``."""

    def declared(schema: dict[str, Any]) -> None:
        left_out_or_given(schema)
        schema["enum"] = list(names)

    return declared


@dataclass(frozen=True, kw_only=True)
class TaskEntry:
    """One task of ``finetuning.tasks``, as the config writes it: its data, scoring and (for
    training) hyperparameters; a registered ``dataset`` fills in the family, format and
    splits it leaves out."""

    # finetuning.settings.task_entry resolves it into a FinetuningTask

    __pydantic_config__ = ConfigDict(
        **ENTRY,
        json_schema_extra={
            "required": ["preset"],
            "anyOf": [
                {"required": ["dataset"]},
                {"required": ["family", "format", "train", "test"]},
            ],
        },
    )

    name: SkipJsonSchema[str]  # its key in finetuning.tasks (the caller's, not the config's)
    dataset: str | None = None
    """a registered public dataset (docs/finetuning-and-metrics.md): downloaded, verified and
    converted under results/data/; it sets family, format, the split paths, folds, metric and
    label settings the task leaves unset"""
    family: Annotated[str | None, Field(json_schema_extra=_declared(FAMILY_NAMES))] = None
    """ner (biobert_tsv, conll), re (biobert_tsv, blue_tsv), dc (hoc_tsv multi-label;
    biobert_tsv, blue_tsv single-label), nli (mednli_jsonl), qa_factoid (squad_json), qa_yesno
    (bioasq_yesno_json, pubmedqa_json), similarity (similarity_jsonl: sentence pairs with a
    numeric score, BIOSSES)"""
    format: Annotated[str | None, Field(json_schema_extra=_declared(FORMAT_NAMES))] = None
    """the files' format"""
    folds: (
        Annotated[
            tuple[Annotated[str | int, WithJsonSchema({"type": ["string", "integer"]})], ...],
            Field(min_length=1),
        ]
        | None
    ) = None
    """cross-validation folds: {fold} in the train/dev/test paths is replaced by each; every
    fold runs, metrics are the median over folds"""
    golden: str | None = None
    """BioASQ golden JSON giving the test answers (qa_factoid, qa_yesno)"""
    intermediate: str | None = None
    """a file in the task's format to fine-tune on first (e.g. SQuAD for qa_factoid)"""
    train: Annotated[str | None, FROM_DATASET] = None
    max_train_examples: Count | None = None
    """use only the first N training examples (quick checks, learning curves); HoC counts its
    unit's examples: abstracts (unit: abstract) or sentences"""
    max_dev_examples: Count | None = None
    """score on a fixed random sample of about N dev examples (whole abstracts or questions
    where the task groups them); quick studies only"""
    max_test_examples: Count | None = None
    """score on a fixed random sample of about N test examples, the same for every model and
    seed; quick studies only"""
    dev: str | None = None  # None: carved from train
    test: Annotated[str | None, FROM_DATASET] = None
    metric: str | None = None
    """primary metric; default per family: ner f1 (conlleval entity F1), re binary_f1 (0/1
    labels) or micro_f1, dc abstract_micro_f1 (multi-label) or micro_f1, nli accuracy,
    qa_factoid mrr (also strict_accuracy, lenient_accuracy), qa_yesno accuracy (also macro_f1,
    roc_auc), similarity pearson (also spearman, mse); ner also reports strict_f1 (seqeval
    strict IOB2) and word_macro_f1 (BLURB PICO)"""
    negative_label: str | None = None
    """label left out of micro-F1 (e.g. ChemProt's false)"""
    positive_labels: tuple[str, ...] | None = None
    unit: Literal["abstract", "sentence"] = "abstract"
    """hoc_tsv (HoC) only: abstract, as BLURB (LinkBERT's preprocess_blurb.py), trains,
    predicts and scores whole abstracts, the sentences of a <PMID>_s<N> file joined in the
    order of N and their labels OR-ed (max_*_examples then count abstracts); sentence trains
    on BLUE's sentences and scores them per abstract. Files already at abstract level
    (blurb-hoc) read the same either way"""
    label_all_subtokens: bool = False
    """NER: train on every sub-token (Rohanian et al. 2023) instead of the first of each word
    (BioBERT); scoring always reads the first"""
    # the name in finetuning.presets the hyperparameters start from (the config requires it)
    preset: Annotated[str | None, Field(json_schema_extra=left_out_or_given)] = None
    # the config's entry: a free-form mapping, whose keys are checked when it is parsed
    hyperparameters: Annotated[
        Hyperparameters | None,
        WithJsonSchema({"type": "object"}),
        Field(json_schema_extra={"default": {}}),
    ] = None
    """overrides of the preset and of the recipe of the dataset the task names (the registry's
    publishers' settings)"""
    label_names: dict[str, Annotated[str, Field(min_length=1)]] = field(default_factory=dict)
    """names of the task files' labels in a saved model's id2label, e.g. {"1": GAD-positive,
    "0": GAD-negative} or NER tags {B-ENT: B-Disease, I-ENT: I-Disease}; labels left out keep
    their own"""


@dataclass(frozen=True, kw_only=True)
class FinetuningTask(TaskEntry):
    """A task of ``finetuning.tasks`` resolved (``finetuning.settings.task_entry``): its
    registered dataset's settings, and its preset's hyperparameters with the overrides, filled
    in; every stage that reads a task's files takes it. ``hyperparameters`` is None for a task
    read for its data alone (the majority baseline, whose result does not depend on them)."""

    __pydantic_config__ = ENTRY

    family: str
    format: str
    train: str
    test: str

    def __post_init__(self) -> None:
        where = f"config: finetuning.tasks.{self.name}"
        if self.unit != "abstract" and self.format != "hoc_tsv":
            raise ValueError(
                f"{where}: unit: {self.unit} applies to hoc_tsv files only (this task's format "
                f"is {self.format})"
            )
        training = self.hyperparameters
        if training is None:
            return
        if training.pos_weight != "none" and self.format != "hoc_tsv":
            raise ValueError(
                f"{where}: pos_weight: {training.pos_weight} applies to multi-label (hoc_tsv) "
                "tasks only"
            )
        if training.pooling == "mean" and self.family in TOKEN_LEVEL_FAMILIES:
            raise ValueError(
                f"{where}: pooling: mean applies to sequence-level families, not {self.family} "
                "(its model reads every token)"
            )

    @property
    def training(self) -> Hyperparameters:
        """The hyperparameters of a task read for training."""
        if self.hyperparameters is None:
            raise ValueError(f"task {self.name!r} was read without its hyperparameters")
        return self.hyperparameters

    def as_entry(self) -> dict[str, Any]:
        """The task as a plain entry, every field and hyperparameter given, which
        ``parse_entry`` parses back to an equal task."""
        entry = asdict(self)
        for key in ("folds", "positive_labels"):
            if entry[key] is not None:
                entry[key] = list(entry[key])
        return entry
