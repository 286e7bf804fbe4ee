"""Yes/no question answering (BioASQ yes/no, PubMedQA): (question, snippet) pairs
classified from the [CLS] head; a question's snippet probabilities are averaged."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import IO, TYPE_CHECKING

import numpy as np
from scipy.special import softmax

from biocompact.finetuning.bioasq import golden_answer
from biocompact.finetuning.family import Encoded
from biocompact.finetuning.metrics import Metric, ScoredLabel, roc_auc_metric, yesno_metrics
from biocompact.finetuning.predictions import scored_label_rows
from biocompact.finetuning.sequence_classification import SequenceClassification
from biocompact.finetuning.unit_statistics import ComparedRuns, UnitStatistic, class_statistic
from biocompact.taskfiles.bioasq import read_bioasq_golden
from biocompact.taskfiles.readers import DatasetFormatError, LabelledText

if TYPE_CHECKING:
    from biocompact.taskfiles.settings import FinetuningTask


def _questions(examples: Sequence[LabelledText]) -> dict[str, list[LabelledText]]:
    """Examples by question (first-seen order)."""
    questions: dict[str, list[LabelledText]] = {}
    for example in examples:
        questions.setdefault(example.group or example.id, []).append(example)
    return questions


class YesNoQuestions(SequenceClassification):
    """Scored per question: accuracy, macro-F1 and ROC AUC (BioXtract)."""

    prediction_rows = staticmethod(scored_label_rows)

    def __init__(self) -> None:
        super().__init__(
            "qa_yesno",
            default_metric="accuracy",
            binary_default=False,
        )

    def read_split(self, task: FinetuningTask, split: str) -> list[LabelledText]:
        """Test answers come from the task's ``golden`` BioASQ file when one is given."""
        examples = super().read_split(task, split)
        if split == "test" and task.golden:
            golden = read_bioasq_golden(task.golden)
            examples = [
                LabelledText(
                    e.id,
                    e.text,
                    golden_answer(golden, e.group, "yesno", task.golden),
                    e.source,
                    e.line,
                    e.text_pair,
                    e.group,
                )
                for e in examples
            ]
        for example in examples:
            if not example.label:
                raise DatasetFormatError(
                    example.source,
                    example.line,
                    f"{example.id}: no yes/no answer (give the task a golden file)",
                )
        return examples

    def group(self, example: LabelledText) -> str | None:
        return example.group

    def metrics(self, task: FinetuningTask, labels: Sequence[str]) -> dict[str, Metric]:
        return yesno_metrics(labels, "question (snippet probabilities averaged)")

    def gold(self, examples: Sequence[LabelledText]) -> list[str]:
        gold = []
        for question, snippets in _questions(examples).items():
            answers = {snippet.label for snippet in snippets}
            if len(answers) > 1:
                first = snippets[0]
                raise DatasetFormatError(
                    first.source, first.line, f"question {question} has answers {sorted(answers)}"
                )
            gold.append(snippets[0].label)
        return gold

    def encode(self, examples, tokenizer, labels, task) -> Encoded:
        encoded = super().encode(examples, tokenizer, labels, task)
        encoded.alignment = [example.group or example.id for example in examples]
        return encoded

    def decode(self, logits: np.ndarray, encoded: Encoded, labels: Sequence[str]) -> list:
        """Mean class probabilities over a question's snippets; the most probable label."""
        probabilities = softmax(logits, axis=-1)
        rows: dict[str, list[np.ndarray]] = {}
        for question, row in zip(encoded.alignment, probabilities):
            rows.setdefault(question, []).append(row)
        predictions = []
        for question_rows in rows.values():
            mean = np.mean(question_rows, axis=0)
            predictions.append(ScoredLabel(labels[int(mean.argmax())], tuple(map(float, mean))))
        return predictions

    def majority(
        self, train: Sequence[LabelledText], examples: Sequence[LabelledText]
    ) -> list[ScoredLabel]:
        """The most frequent training answer (over questions) for every question."""
        counts = Counter(self.gold(train))
        labels = sorted(counts)
        most_frequent = max(labels, key=counts.__getitem__)
        one_hot = tuple(float(label == most_frequent) for label in labels)
        return [ScoredLabel(most_frequent, one_hot)] * len(_questions(examples))

    def write_predictions(
        self, handle: IO[str], examples: Sequence[LabelledText], predictions: Sequence
    ) -> None:
        """``question<TAB>gold<TAB>predicted<TAB>probabilities`` (JSON list, training-label
        order) after a header line, one row per question."""
        handle.write("question\tgold\tpredicted\tprobabilities\n")
        for (question, _), gold, predicted in zip(
            _questions(examples).items(), self.gold(examples), predictions
        ):
            probabilities = ", ".join(f"{p:.6f}" for p in predicted.probabilities)
            handle.write(f"{question}\t{gold}\t{predicted.label}\t[{probabilities}]\n")

    def unit_statistic(self, metric: str, runs: ComparedRuns) -> UnitStatistic | None:
        return class_statistic(metric, runs.labels, scored=True)

    def item_metric(self, metric: str, labels: Sequence[str]) -> Callable[[list, list], float]:
        return roc_auc_metric(labels, "question").compute

    def resampled_unit(self, metric: str) -> str:
        return "questions"
