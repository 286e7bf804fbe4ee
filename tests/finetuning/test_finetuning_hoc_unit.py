"""HoC's unit: whole abstracts (BLURB, the default) or BLUE's sentences, through the splits
that fine-tuning and its baseline read."""

from __future__ import annotations

from pathlib import Path

import pytest
from finetuning_tasks import parsed_task

from biocompact.finetuning.splits import load_splits
from biocompact.finetuning.tasks import get_family

HEADER = "labels\tsentence\tindex\n"


def row(labels: str, sentence: str, index: str) -> str:
    flags = ",".join(f"{i}_{flag}" for i, flag in enumerate(labels))
    return f"{flags}\t{sentence}\t{index}\n"


@pytest.fixture
def files(tmp_path) -> dict[str, str]:
    """Train: abstracts 11 (3 sentences, out of order), 22 (2) and 33 (1); dev and test:
    abstract 44 (2 sentences)."""
    train = (
        row("01", "B.", "11_s1")
        + row("10", "A.", "11_s0")
        + row("00", "C.", "11_s2")
        + row("00", "D.", "22_s0")
        + row("01", "E.", "22_s1")
        + row("10", "F.", "33_s0")
    )
    evaluation = row("10", "G.", "44_s0") + row("00", "H.", "44_s1")
    paths = {}
    for split, text in (("train", train), ("dev", evaluation), ("test", evaluation)):
        path = Path(tmp_path) / f"{split}.tsv"
        path.write_text(HEADER + text, encoding="utf-8")
        paths[split] = str(path)
    return paths


def hoc_task(files: dict[str, str], **settings):
    return parsed_task(family="dc", format="hoc_tsv", **files, **settings)


def test_the_default_unit_is_the_abstract(files):
    splits = load_splits(hoc_task(files), get_family("dc", "hoc_tsv"))
    assert [(e.id, e.text, e.labels) for e in splits.train] == [
        ("11", "A. B. C.", frozenset({"0", "1"})),
        ("22", "D. E.", frozenset({"1"})),
        ("33", "F.", frozenset({"0"})),
    ]
    assert [(e.id, e.document, e.text) for e in splits.test] == [("44", "44", "G. H.")]
    assert splits.labels == ["0", "1"]


def test_max_train_examples_counts_abstracts_at_the_abstract_level(files):
    family = get_family("dc", "hoc_tsv")
    splits = load_splits(hoc_task(files, max_train_examples=2), family)
    assert [e.id for e in splits.train] == ["11", "22"]
    assert splits.subsampled == {"train": (2, 3)}
    sentences = load_splits(hoc_task(files, max_train_examples=2, unit="sentence"), family)
    assert [e.id for e in sentences.train] == ["11_s1", "11_s0"]
    assert sentences.subsampled == {"train": (2, 6)}


def test_unit_sentence_keeps_blue_sentences(files):
    splits = load_splits(hoc_task(files, unit="sentence"), get_family("dc", "hoc_tsv"))
    assert [e.id for e in splits.train] == ["11_s1", "11_s0", "11_s2", "22_s0", "22_s1", "33_s0"]
    assert [(e.id, e.document) for e in splits.test] == [("44_s0", "44"), ("44_s1", "44")]


def test_unit_is_checked():
    with pytest.raises(ValueError, match="unit is 'paragraph', not 'abstract' or 'sentence'"):
        parsed_task(family="dc", format="hoc_tsv", unit="paragraph")
    with pytest.raises(ValueError, match="unit: sentence applies to hoc_tsv files only"):
        parsed_task(unit="sentence")
