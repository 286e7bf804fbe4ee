"""Extractive factoid question answering (BioASQ in SQuAD form): a start/end span per
snippet, merged per question into the 5 best answers and scored as BioASQ does."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING

import numpy as np
from scipy.special import softmax

from biocompact.finetuning.bioasq import TOP_ANSWERS, golden_answer, merge_candidates
from biocompact.finetuning.family import Encoded, TaskFamily, dataset_of
from biocompact.finetuning.metrics import Metric, factoid_metrics
from biocompact.finetuning.predictions import answer_rows
from biocompact.finetuning.unit_statistics import ComparedRuns, UnitStatistic, rank_statistic
from biocompact.taskfiles.bioasq import Snippet, read_bioasq_golden
from biocompact.taskfiles.readers import DatasetFormatError

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

    from biocompact.taskfiles.settings import FinetuningTask, Hyperparameters

CONTEXT = 1  # sequence id of the snippet in (question, snippet) inputs


def _questions(examples: Sequence[Snippet]) -> dict[str, list[Snippet]]:
    """Snippets by question id (first-seen order)."""
    questions: dict[str, list[Snippet]] = {}
    for example in examples:
        questions.setdefault(example.question_id, []).append(example)
    return questions


def _answer_span(
    offsets: Sequence[tuple[int, int] | None], start: int, end: int
) -> tuple[int, int] | None:
    """Token positions of the first and last token of characters [start, end) when the
    window ``offsets`` (None outside the snippet) holds all of them."""
    tokens = [(k, offset) for k, offset in enumerate(offsets) if offset is not None]
    if not tokens or tokens[0][1][0] > start or tokens[-1][1][1] < end:
        return None
    first = next(k for k, offset in tokens if offset[1] > start)
    last = next(k for k, offset in reversed(tokens) if offset[0] < end)
    return first, last


class ExtractiveQuestionAnswering(TaskFamily):
    """Span prediction per snippet; strict/lenient accuracy and MRR per question."""

    name = "qa_factoid"
    auto_model = "AutoModelForQuestionAnswering"
    example = Snippet
    default_metric = "mrr"
    pipeline_tag = "question-answering"
    prediction_rows = staticmethod(answer_rows)

    def build_model(self, model_path: str, labels: Sequence[str]) -> PreTrainedModel:
        return self.load_model(model_path)

    def read_split(self, task: FinetuningTask, split: str) -> list[Snippet]:
        """Test answers come from the task's ``golden`` BioASQ file when one is given."""
        examples = super().read_split(task, split)
        if split != "test" or not task.golden:
            return examples
        golden = read_bioasq_golden(task.golden)
        return [
            Snippet(
                e.id,
                e.question_id,
                e.question,
                e.context,
                golden_answer(golden, e.question_id, "factoid", task.golden),
                (),
                e.source,
                e.line,
            )
            for e in examples
        ]

    def group(self, example: Snippet) -> str:
        return example.question_id

    def metrics(self, task: FinetuningTask, labels: Sequence[str]) -> dict[str, Metric]:
        return factoid_metrics()

    def gold(self, examples: Sequence[Snippet]) -> list[list[str]]:
        """The answers (synonyms) given for each question over all its snippets."""
        gold = []
        for question, snippets in _questions(examples).items():
            answers = list(dict.fromkeys(a for snippet in snippets for a in snippet.answers))
            if not answers:
                raise DatasetFormatError(
                    snippets[0].source,
                    snippets[0].line,
                    f"question {question} has no answer (give the task a golden file)",
                )
            gold.append(answers)
        return gold

    def encode(
        self,
        examples: Sequence[Snippet],
        tokenizer: PreTrainedTokenizerBase,
        labels: Sequence[str],
        task: FinetuningTask,
    ) -> Encoded:
        """(question, snippet) windows of max_seq_length sliding by doc_stride; a window
        that does not hold the first answer is trained to point at [CLS] (position 0).
        Counts snippets whose answer lies in no window (they only teach "no answer")."""
        hyperparameters = task.training
        _check_window_room(examples, tokenizer, hyperparameters)
        encoding = tokenizer(
            [example.question for example in examples],
            [example.context for example in examples],
            truncation="only_second",
            max_length=hyperparameters.max_seq_length,
            stride=hyperparameters.doc_stride,
            return_overflowing_tokens=True,
            return_offsets_mapping=True,
        )
        owners = encoding.pop("overflow_to_sample_mapping")
        all_offsets = encoding.pop("offset_mapping")
        starts, ends, alignment = [], [], []
        answered: set[int] = set()
        for feature, (owner, offsets) in enumerate(zip(owners, all_offsets)):
            example = examples[owner]
            sequence_ids = encoding.sequence_ids(feature)
            window = [
                tuple(offset) if sequence == CONTEXT else None
                for offset, sequence in zip(offsets, sequence_ids)
            ]
            span = None
            if example.starts:
                start = example.starts[0]
                span = _answer_span(window, start, start + len(example.answers[0]))
            if span:
                answered.add(owner)
            starts.append(span[0] if span else 0)
            ends.append(span[1] if span else 0)
            alignment.append((example, window))
        with_answer = sum(bool(example.starts) for example in examples)
        dataset = dataset_of({**encoding, "start_positions": starts, "end_positions": ends})
        stats = {"features": len(alignment), "answers_outside_window": with_answer - len(answered)}
        settings = {
            "n_best": hyperparameters.n_best,
            "max_answer_length": hyperparameters.max_answer_length,
        }
        return Encoded(dataset, alignment, stats, settings)

    def decode(self, logits: tuple, encoded: Encoded, labels: Sequence[str]) -> list[list[str]]:
        """Per snippet, the n_best start x n_best end spans inside it (at most
        max_answer_length tokens) with softmax probabilities over them; per question, the
        candidates of its snippets merged into the 5 best answers."""
        start_logits, end_logits = logits
        n_best, longest = encoded.settings["n_best"], encoded.settings["max_answer_length"]
        spans: dict[str, list[tuple[str, float]]] = {}
        snippets: dict[str, Snippet] = {}
        for (example, window), starts, ends in zip(encoded.alignment, start_logits, end_logits):
            snippets[example.id] = example
            candidates = spans.setdefault(example.id, [])
            starts, ends = starts[: len(window)], ends[: len(window)]
            for i in np.argsort(starts)[::-1][:n_best]:
                for j in np.argsort(ends)[::-1][:n_best]:
                    if window[i] is None or window[j] is None or not 0 <= j - i < longest:
                        continue
                    text = example.context[window[i][0] : window[j][1]]
                    candidates.append((text, float(starts[i] + ends[j])))
        merged: dict[str, list[tuple[str, float]]] = {}
        for snippet_id, candidates in spans.items():
            best = sorted(candidates, key=lambda candidate: -candidate[1])[:n_best]
            probabilities = softmax([score for _, score in best]) if best else []
            question = merged.setdefault(snippets[snippet_id].question_id, [])
            question.extend((text, float(p)) for (text, _), p in zip(best, probabilities))
        return [merge_candidates(candidates) for candidates in merged.values()]

    def majority(self, train: Sequence[Snippet], examples: Sequence[Snippet]) -> list[list[str]]:
        """The 5 most frequent training answers (case-insensitive) for every question."""
        counts = Counter(answer.lower() for answers in self.gold(train) for answer in answers)
        frequent = [answer for answer, _ in counts.most_common(TOP_ANSWERS)]
        return [frequent] * len(_questions(examples))

    def write_predictions(
        self, handle: IO[str], examples: Sequence[Snippet], predictions: Sequence
    ) -> None:
        """``question<TAB>gold<TAB>predicted``, gold synonyms and the ranked answers as JSON
        lists, after a header line; one row per question."""
        handle.write("question\tgold\tpredicted\n")
        for question, gold, answers in zip(_questions(examples), self.gold(examples), predictions):
            handle.write(f"{question}\t{json.dumps(gold)}\t{json.dumps(answers)}\n")

    def unit_statistic(self, metric: str, runs: ComparedRuns) -> UnitStatistic:
        return rank_statistic(metric)

    def resampled_unit(self, metric: str) -> str:
        return "questions"


def _check_window_room(
    examples: Sequence[Snippet],
    tokenizer: PreTrainedTokenizerBase,
    hyperparameters: Hyperparameters,
) -> None:
    """Each window must hold more snippet tokens than ``doc_stride`` beside the longest
    question (the tokenizer panics otherwise): a clear error naming the settings instead."""
    questions = {example.question for example in examples}
    if not questions:
        return
    longest = max(
        len(ids) for ids in tokenizer(sorted(questions), add_special_tokens=False)["input_ids"]
    )
    room = hyperparameters.max_seq_length - longest - tokenizer.num_special_tokens_to_add(pair=True)
    if room <= hyperparameters.doc_stride:
        raise ValueError(
            f"the longest question is {longest} tokens: a window of max_seq_length "
            f"{hyperparameters.max_seq_length} leaves {room} snippet tokens, not more than "
            f"doc_stride {hyperparameters.doc_stride}; raise max_seq_length or lower doc_stride"
        )
