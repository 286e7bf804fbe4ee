"""Sub-token alignment, truncation and decoding with the MiniLM WordPiece tokenizer."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from finetuning_tasks import parsed_task
from tiny_models import MINILM
from transformers import AutoTokenizer

from biocompact.finetuning.tasks import get_family
from biocompact.taskfiles.readers import LabelledText, MultiLabelText, TaggedSentence
from biocompact.taskfiles.settings import FinetuningTask, Hyperparameters

LABELS = ["B-ENT", "I-ENT", "O"]  # ids 0, 1, 2
X = -100
# [CLS] fa ##mi ##lia ##l cancer of br ##ca ##1 [SEP]
SENTENCE = TaggedSentence(
    ["familial", "cancer", "of", "BRCA1"], ["B-ENT", "I-ENT", "O", "B-ENT"], "t.tsv", 1
)


@pytest.fixture(scope="module")
def tokenizer():
    return AutoTokenizer.from_pretrained(MINILM)


def task(max_seq_length: int = 32, **settings) -> FinetuningTask:
    # built, not parsed: the truncation tests go below the config's minimum length (8)
    training = Hyperparameters(max_seq_length=max_seq_length)
    return replace(parsed_task(**settings), hyperparameters=training)


def test_only_first_subtoken_is_labelled(tokenizer):
    encoded = get_family("ner").encode([SENTENCE], tokenizer, LABELS, task())
    assert encoded.dataset[0]["labels"] == [X, 0, X, X, X, 1, 2, 0, X, X, X]
    assert encoded.alignment == [[1, 5, 6, 7]]
    assert encoded.stats == {"truncated_words": 0, "untokenizable_words": 0}


def test_label_all_subtokens_continues_b_as_i(tokenizer):
    encoded = get_family("ner").encode(
        [SENTENCE], tokenizer, LABELS, task(label_all_subtokens=True)
    )
    assert encoded.dataset[0]["labels"] == [X, 0, 1, 1, 1, 1, 2, 0, 1, 1, X]
    assert encoded.alignment == [[1, 5, 6, 7]]


def test_decode_reads_first_subtoken_and_predicts_o_beyond_truncation(tokenizer):
    ner = get_family("ner")
    # max 7: [CLS] fa ##mi ##lia ##l cancer [SEP] -> "of" and "BRCA1" are cut off
    encoded = ner.encode([SENTENCE], tokenizer, LABELS, task(max_seq_length=7))
    assert encoded.alignment == [[1, 5, None, None]]
    assert encoded.stats["truncated_words"] == 2
    logits = np.zeros((1, 7, 3))
    logits[0, 1, 0] = logits[0, 2, 2] = logits[0, 5, 1] = 1.0  # B at fa, O at ##mi, I at cancer
    assert ner.decode(logits, encoded, LABELS) == [["B-ENT", "I-ENT", "O", "O"]]
    assert ner.score([SENTENCE], [["B-ENT", "I-ENT", "O", "O"]], task(), LABELS)["recall"] == 0.5


def test_words_without_subtokens_are_counted_and_predicted_o(tokenizer):
    sentence = TaggedSentence(["cancer", "\u200b", "of"], ["B-ENT", "O", "O"], "t.tsv", 1)
    ner = get_family("ner")
    encoded = ner.encode([sentence], tokenizer, LABELS, task())
    assert encoded.alignment == [[1, None, 2]]
    assert encoded.stats == {"truncated_words": 0, "untokenizable_words": 1}
    assert ner.decode(np.zeros((1, 4, 3)), encoded, LABELS) == [["B-ENT", "O", "B-ENT"]]


def test_classification_truncation_and_decoding(tokenizer):
    examples = [
        LabelledText("0", "@GENE$ is linked to @DISEASE$.", "1", "t.tsv", 1),
        LabelledText("1", "short", "0", "t.tsv", 2),
    ]
    re = get_family("re")
    encoded = re.encode(examples, tokenizer, ["0", "1"], task(max_seq_length=6))
    assert encoded.dataset["labels"] == [1, 0]
    assert [len(ids) for ids in encoded.dataset["input_ids"]] == [6, 3]
    assert encoded.stats == {"truncated_examples": 1}
    assert re.decode(np.array([[0.1, 0.9], [2.0, -1.0]]), encoded, ["0", "1"]) == ["1", "0"]


@pytest.mark.parametrize(("threshold", "expected"), [(0.5, {"1", "2"}), (0.8, {"2"})])
def test_multilabel_decoding_predicts_the_labels_above_the_threshold(
    tokenizer, threshold, expected
):
    """sigmoid(0.5) = 0.62 and sigmoid(2.0) = 0.88: at 0.5 both labels, at 0.8 only the
    second; sigmoid(-1) = 0.27 never."""
    example = MultiLabelText("s1", "text", frozenset({"1"}), "d1", "t.tsv", 2)
    hoc = get_family("dc", "hoc_tsv")
    encoded = hoc.encode(
        [example], tokenizer, ["0", "1", "2"], parsed_task(hyperparameters={"threshold": threshold})
    )
    assert hoc.decode(np.array([[-1.0, 0.5, 2.0]]), encoded, ["0", "1", "2"]) == [
        frozenset(expected)
    ]


def test_multilabel_counts_abstracts_and_truncated_abstracts(tokenizer):
    """At max_seq_length 8 ([CLS] 6 tokens [SEP]): d1's long sentence is truncated, its short
    one and d2's are not; one truncated example, 2 abstracts, 1 of them truncated."""
    long = "familial cancer of the breast and ovary in many families"
    examples = [
        MultiLabelText("d1_s0", long, frozenset({"1"}), "d1", "t.tsv", 2),
        MultiLabelText("d1_s1", "short", frozenset(), "d1", "t.tsv", 3),
        MultiLabelText("d2_s0", "also short", frozenset(), "d2", "t.tsv", 4),
    ]
    encoded = get_family("dc", "hoc_tsv").encode(
        examples, tokenizer, ["0", "1"], task(8, family="dc", format="hoc_tsv")
    )
    assert encoded.stats == {"truncated_examples": 1, "abstracts": 2, "truncated_abstracts": 1}
