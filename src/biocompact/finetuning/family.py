"""What a task family (NER, relation extraction, QA, document classification, NLI) must
provide to the shared training and baseline code, to the model card (its Hub pipeline tag)
and to the report's comparisons (its predictions file read back, its metrics as sums over
test units).

Light to import: transformers and ``datasets`` are imported where a model, a batch or a
dataset is built, so that the report stage (no torch, no transformers) reads predictions
with the families' own readers."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from biocompact.finetuning.metrics import Metric, score
from biocompact.finetuning.predictions import FoldPredictions, read_predictions
from biocompact.finetuning.unit_statistics import ComparedRuns, UnitStatistic
from biocompact.taskfiles.formats import family_readers

if TYPE_CHECKING:
    from datasets import Dataset
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

    from biocompact.taskfiles.settings import FinetuningTask


# the auto class of the sequence-level families, whose model reads one pooled vector
SEQUENCE_CLASSIFICATION = "AutoModelForSequenceClassification"


@dataclass
class Encoded:
    """Model inputs of one split plus what decoding needs to map outputs back to examples."""

    dataset: Dataset
    alignment: list = field(default_factory=list)
    stats: dict[str, int] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)


def dataset_of(columns: Mapping[str, list]) -> Dataset:
    """The Hugging Face ``Dataset`` of ``columns`` (name -> one value per example)."""
    from datasets import Dataset

    return Dataset.from_dict(dict(columns))


class TaskFamily(ABC):
    """How one family of tasks reads, encodes, decodes, scores and writes predictions."""

    name: str
    auto_model: str  # the transformers AutoModelFor... class of its models, by name
    model_options: Mapping[
        str, Any
    ] = {}  # further config settings of the model, e.g. its problem_type
    example: type  # the example its formats' readers return (taskfiles/formats.py)
    default_metric: str
    pipeline_tag: str  # the Hub pipeline tag of its fine-tuned models (their cards')

    @property
    def readers(self) -> dict[str, Callable[[str | Path], list]]:
        """The readers, by format, of the formats declared for its name that read its
        ``example``s."""
        return family_readers(self.name, self.example)

    def read(self, path: str | Path, fmt: str) -> list:
        """Read one split file in format ``fmt``."""
        if fmt not in self.readers:
            raise ValueError(
                f"unknown {self.name} format {fmt!r} for {path}; known: {sorted(self.readers)}"
            )
        return self.readers[fmt](path)

    def read_split(self, task: FinetuningTask, split: str) -> list:
        """Read the task's ``split`` file (families with a golden file attach it here)."""
        return self.read_task_file(task, getattr(task, split))

    def read_task_file(self, task: FinetuningTask, path: str | Path) -> list:
        """Read a file of ``task`` (a split or its ``intermediate`` file) into the examples
        it trains on and scores (HoC: the task's ``unit``)."""
        return self.read(path, task.format)

    def group(self, example: Any) -> str | None:
        """The unit scored as one (a question, an abstract) that dev carving keeps whole;
        None when every example stands alone."""
        return None

    def load_model(self, model_path: str, **settings: Any) -> PreTrainedModel:
        """``model_path`` loaded as ``auto_model`` with ``model_options`` and ``settings``
        (a sequence classifier fine-tuned here with mean pooling pools so again)."""
        import transformers

        model_class = getattr(transformers, self.auto_model)
        model = model_class.from_pretrained(model_path, **settings, **self.model_options)
        if self.auto_model == SEQUENCE_CLASSIFICATION:
            from biocompact.finetuning.pooling import restore_pooling

            restore_pooling(model)
        return model

    def build_model(self, model_path: str, labels: Sequence[str]) -> PreTrainedModel:
        """Load ``model_path`` with a freshly initialised head for ``labels``."""
        return self.load_model(
            model_path,
            num_labels=len(labels),
            id2label=dict(enumerate(labels)),
            label2id={label: i for i, label in enumerate(labels)},
        )

    def primary_metric(self, task: FinetuningTask, labels: Sequence[str]) -> str:
        """The task's ``metric`` (or the family default), checked to exist."""
        name = task.metric or self.default_metric
        available = self.metrics(task, labels)
        if name not in available:
            raise ValueError(
                f"metric {name!r} not available for this task; have {sorted(available)}"
            )
        return name

    def score(
        self, examples: Sequence, predictions: Sequence, task: FinetuningTask, labels: Sequence[str]
    ) -> dict[str, float]:
        """Score ``predictions`` against the gold labels of ``examples``."""
        return score(self.metrics(task, labels), self.gold(examples), predictions)

    @abstractmethod
    def metrics(self, task: FinetuningTask, labels: Sequence[str]) -> dict[str, Metric]:
        """The metrics reported for this task."""

    @abstractmethod
    def gold(self, examples: Sequence) -> list:
        """Gold labels in the form the metrics take."""

    @abstractmethod
    def encode(
        self,
        examples: Sequence,
        tokenizer: PreTrainedTokenizerBase,
        labels: Sequence[str],
        task: FinetuningTask,
    ) -> Encoded:
        """Tokenise ``examples`` (truncating to the preset's max_seq_length) with label ids."""

    @abstractmethod
    def decode(self, logits: Any, encoded: Encoded, labels: Sequence[str]) -> list:
        """Turn model outputs on ``encoded`` (Trainer's predictions: an array, or a tuple of
        arrays for a model with several outputs) into predictions in the form of ``gold``."""

    @abstractmethod
    def majority(self, train: Sequence, examples: Sequence) -> list:
        """Majority-class predictions for ``examples`` learnt from ``train``."""

    def all_positive(
        self, train: Sequence, examples: Sequence, task: FinetuningTask, labels: Sequence[str]
    ) -> list | None:
        """The all-positive constant floor's predictions for ``examples``, or None where the
        majority class is already the strongest constant prediction of the task's primary
        metric (accuracy, correlation, QA) or a constant scores (near) 0 (NER)."""
        return None

    def data_collator(self, tokenizer: PreTrainedTokenizerBase) -> Callable:
        """Batch padding for the Trainer: every input padded to the batch's longest."""
        from transformers import DataCollatorWithPadding

        return DataCollatorWithPadding(tokenizer)

    @abstractmethod
    def write_predictions(self, handle: IO[str], examples: Sequence, predictions: Sequence) -> None:
        """Write test predictions (one row per test item) to an open text file."""

    def read_predictions(self, path: str | Path) -> list[FoldPredictions]:
        """Every fold of a predictions file that ``write_predictions`` wrote, read back."""
        return read_predictions(path, self.prediction_rows)

    @abstractmethod
    def prediction_rows(
        self, path: Path, fold: FoldPredictions, lines: list[tuple[int, str]]
    ) -> None:
        """Add the items of one fold's numbered lines of ``path`` to ``fold`` (one of the row
        readers of ``predictions.py``)."""

    @abstractmethod
    def unit_statistic(self, metric: str, runs: ComparedRuns) -> UnitStatistic | None:
        """The sum form of ``metric`` on the task of ``runs`` (``unit_statistics.py``), for
        a paired bootstrap over test units; None for a metric without one (``item_metric``
        then gives it)."""

    def item_metric(self, metric: str, labels: Sequence[str]) -> Callable[[list, list], float]:
        """The ``metrics.py`` function of a metric without a sum form, computed on items."""
        raise ValueError(f"{self.name}: every metric has a sum form, {metric!r} too")

    def resampled_unit(self, metric: str) -> str:
        """What a bootstrap of ``metric`` resamples, as the report names it."""
        return "examples"
