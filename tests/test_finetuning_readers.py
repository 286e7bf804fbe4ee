"""Dataset readers: exact counts on the real data, clear errors on malformed input."""

from __future__ import annotations

from pathlib import Path

import pytest

from biocompact.finetuning.readers import (
    DatasetFormatError,
    read_ner_biobert_tsv,
    read_ner_conll,
    read_re_biobert_tsv,
    read_re_blue_tsv,
)


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("corpus", "counts"),
    [
        ("NCBI-disease", (5424, 923, 940)),
        ("BC5CDR-chem", (4560, 4581, 4797)),
        ("BC2GM", (12574, 2519, 5038)),
    ],
)
def test_ner_biobert_tsv_sentence_counts(shared_data, corpus, counts):
    folder = shared_data / "ner" / corpus
    splits = ("train", "devel", "test")
    sentences = [read_ner_biobert_tsv(folder / f"{split}.tsv") for split in splits]
    assert tuple(map(len, sentences)) == counts
    tags = {tag for split in sentences for sentence in split for tag in sentence.tags}
    assert tags == {"B-ENT", "I-ENT", "O"}


def test_ner_first_sentence_and_lines(shared_data):
    first = read_ner_biobert_tsv(shared_data / "ner" / "NCBI-disease" / "train.tsv")[0]
    assert first.tokens[:3] == ["Identification", "of", "APC2"]
    assert first.line == 1
    assert len(first.tokens) == len(first.tags)


def test_gad_fold_1_counts_and_test_header(shared_data):
    folder = shared_data / "re" / "GAD" / "1"
    train = read_re_biobert_tsv(folder / "train.tsv")
    test = read_re_biobert_tsv(folder / "test.tsv")
    assert (len(train), len(test)) == (4796, 534)
    assert [example.label for example in train].count("1") == 2520
    assert (test[0].id, test[0].label, test[0].line) == ("0", "1", 2)
    assert test[0].text.startswith("These results suggest")
    assert (train[1].id, train[1].line) == ("1", 2)


@pytest.mark.parametrize("fold", range(1, 11))
def test_all_gad_folds_parse(shared_data, fold):
    folder = shared_data / "re" / "GAD" / str(fold)
    assert {e.label for e in read_re_biobert_tsv(folder / "train.tsv")} == {"0", "1"}
    assert read_re_biobert_tsv(folder / "test.tsv")


def test_chemprot_dev_blue_tsv_without_header(shared_data):
    dev = read_re_blue_tsv(shared_data / "re" / "chemprot" / "dev.tsv")
    assert len(dev) == 11820
    assert dev[0].id == "10064839.T49.T56" and dev[0].label == "false"
    labels = [example.label for example in dev]
    assert labels.count("false") == 9404 and labels.count("CPR:4") == 1094


def test_untyped_tags_become_typed_iob2_and_typed_tags_stay(tmp_path):
    path = write(tmp_path / "a.tsv", "Aspirin\tB\nuse\tO\n\nBRCA1\tB-Gene\ngene\tI-Gene\n\n\n")
    first, second = read_ner_biobert_tsv(path)
    assert first.tags == ["B-ENT", "O"]
    assert second.tags == ["B-Gene", "I-Gene"] and second.line == 4


def test_conll_multi_column_token_first_tag_last(tmp_path):
    text = "-DOCSTART- -X- O O\n\nEU NNP B-NP B-ORG\nrejects VBZ B-VP O\n\nPeter NNP B-NP B-PER\n"
    sentences = read_ner_conll(write(tmp_path / "a.conll", text))
    assert [s.tokens for s in sentences] == [["EU", "rejects"], ["Peter"]]
    assert [s.tags for s in sentences] == [["B-ORG", "O"], ["B-PER"]]
    assert sentences[1].line == 6


@pytest.mark.parametrize(
    ("reader", "text", "message"),
    [
        (read_ner_biobert_tsv, "a\tO\nb\tO\textra\n", r"a\.tsv:2: malformed line"),
        (read_ner_biobert_tsv, "a\tO\nb\n", r"a\.tsv:2: malformed line"),
        (read_ner_biobert_tsv, "a\tO\n\nb\tS-Gene\n", r"a\.tsv:3: unknown tag scheme: 'S-Gene'"),
        (read_ner_biobert_tsv, "a\tE\n", r"a\.tsv:1: unknown tag scheme"),
        (read_ner_biobert_tsv, "\n\n", r"a\.tsv: no examples"),
        (read_ner_conll, "a NN O\nb\n", r"a\.tsv:2: malformed line"),
        (read_re_biobert_tsv, "s one\t1\ns two\n", r"a\.tsv:2: expected 2 non-empty"),
        (read_re_biobert_tsv, "index\tsentence\tlabel\n0\ts\t1\n1\ts\n", r"a\.tsv:3: expected 3"),
        (read_re_biobert_tsv, "", r"a\.tsv: no examples"),
        (read_re_biobert_tsv, "index\tsentence\tlabel\n", r"a\.tsv: no examples"),
        (read_re_blue_tsv, "x1\ts\tfalse\nx2\ts\n", r"a\.tsv:2: expected 3"),
        (read_re_blue_tsv, "x1\ts\t\n", r"a\.tsv:1: expected 3 non-empty"),
    ],
)
def test_malformed_input_names_file_and_line(tmp_path, reader, text, message):
    with pytest.raises(DatasetFormatError, match=message):
        reader(write(tmp_path / "a.tsv", text))


def test_blue_tsv_header_is_skipped(tmp_path):
    path = write(tmp_path / "a.tsv", "index\tsentence\tlabel\nd1\tA @GENE$ text.\tCPR:3\n")
    (example,) = read_re_blue_tsv(path)
    assert (example.id, example.text, example.label, example.line) == (
        "d1",
        "A @GENE$ text.",
        "CPR:3",
        2,
    )
