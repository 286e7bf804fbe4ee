"""Dataset readers: exact counts on the real data, clear errors on malformed input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from biocompact.taskfiles.bioasq import read_bioasq_golden, read_squad_json, read_yesno_json
from biocompact.taskfiles.readers import (
    DatasetFormatError,
    hoc_abstracts,
    read_hoc_tsv,
    read_ner_biobert_tsv,
    read_ner_conll,
    read_nli_jsonl,
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


GAD_COUNTS = [(4796, 534)] + [(4797, 533)] * 8 + [(4798, 532)]


def test_gad_every_fold_has_exact_counts(shared_data):
    counts = [
        tuple(
            len(read_re_biobert_tsv(shared_data / "re" / "GAD" / str(fold) / f"{split}.tsv"))
            for split in ("train", "test")
        )
        for fold in range(1, 11)
    ]
    assert counts == GAD_COUNTS


def test_chemprot_positive_pair_files(shared_data):
    folder = shared_data / "re" / "chemprot"
    train, test = (read_re_blue_tsv(folder / f"{name}.tsv") for name in ("ftrain", "ftest"))
    assert (len(train), len(test)) == (6570, 3458)
    labels = [example.label for example in train]
    assert sorted(set(labels)) == ["CPR:3", "CPR:4", "CPR:5", "CPR:6", "CPR:9"]
    assert labels.count("CPR:4") == 3345 and "@CHEMICAL$" in train[0].text


@pytest.mark.parametrize(
    ("split", "sentences", "abstracts", "positives"),
    [("train", 10527, 1108, 3713), ("dev", 1496, 157, 512), ("test", 2896, 315, 1018)],
)
def test_hoc_sentences_abstracts_and_labels(shared_data, split, sentences, abstracts, positives):
    examples = read_hoc_tsv(shared_data / "dc" / "hoc" / f"{split}.tsv")
    assert len(examples) == sentences
    assert len({example.document for example in examples}) == abstracts
    assert sum(len(example.labels) for example in examples) == positives
    assert {label for example in examples for label in example.labels} == set("0123456789")


def test_hoc_first_rows(shared_data):
    examples = read_hoc_tsv(shared_data / "dc" / "hoc" / "train.tsv")
    assert (examples[0].id, examples[0].document, examples[0].labels, examples[0].line) == (
        "11724768_s0",
        "11724768",
        frozenset(),
        2,
    )
    assert examples[3].labels == frozenset({"8"})


HOC_HEADER = "labels\tsentence\tindex\n"


def hoc_row(labels: str, sentence: str, index: str) -> str:
    """A HoC row of three labels, e.g. ``hoc_row("010", ...)`` for label 1 alone."""
    flags = ",".join(f"{i}_{flag}" for i, flag in enumerate(labels))
    return f"{flags}\t{sentence}\t{index}\n"


def test_hoc_abstracts_join_sentences_in_order_and_or_their_labels(tmp_path):
    path = write(
        tmp_path / "a.tsv",
        HOC_HEADER
        + hoc_row("000", "Second.", "11_s1")  # line 2: out of order within its abstract
        + hoc_row("100", "First.", "11_s0")
        + hoc_row("001", "Third.", "11_s2")
        + hoc_row("000", "Nothing here.", "22_s0")  # an abstract without a hallmark
        + hoc_row("000", "Alone.", "22_s1")
        + hoc_row("010", "Whole abstract.", "33"),  # already at abstract level
    )
    abstracts = hoc_abstracts(read_hoc_tsv(path))
    assert [(a.id, a.document, a.text, a.labels, a.line) for a in abstracts] == [
        ("11", "11", "First. Second. Third.", frozenset({"0", "2"}), 2),
        ("22", "22", "Nothing here. Alone.", frozenset(), 5),
        ("33", "33", "Whole abstract.", frozenset({"1"}), 7),
    ]


def test_hoc_abstracts_merge_a_document_split_across_the_file(tmp_path):
    path = write(
        tmp_path / "a.tsv",
        HOC_HEADER
        + hoc_row("100", "A0.", "11_s0")
        + hoc_row("000", "B0.", "22_s0")
        + hoc_row("001", "A1.", "11_s1"),  # abstract 11 again, after 22
    )
    abstracts = hoc_abstracts(read_hoc_tsv(path))
    assert [(a.id, a.text, a.labels, a.line) for a in abstracts] == [
        ("11", "A0. A1.", frozenset({"0", "2"}), 2),
        ("22", "B0.", frozenset(), 3),
    ]


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (
            hoc_row("100", "A0.", "11_s0") + hoc_row("000", "A0 again.", "11_s0"),
            r"a\.tsv:3: abstract 11: sentence s0 again \(first on line 2\)",
        ),
        (
            hoc_row("100", "A.", "11") + hoc_row("000", "A0.", "11_s0"),
            r"a\.tsv:3: abstract 11 is given both whole and as sentences \(also on lines 2\)",
        ),
    ],
)
def test_hoc_abstracts_refuse_a_sentence_twice_and_a_document_both_ways(tmp_path, rows, message):
    with pytest.raises(DatasetFormatError, match=message):
        hoc_abstracts(read_hoc_tsv(write(tmp_path / "a.tsv", HOC_HEADER + rows)))


@pytest.mark.parametrize(
    ("split", "abstracts", "positives"),
    [("train", 1108, 1746), ("dev", 157, 245), ("test", 315, 478)],
)
def test_hoc_abstracts_of_the_real_files(shared_data, split, abstracts, positives):
    """BLUE's files: every abstract holds a hallmark; ``positives`` (abstract, label) pairs."""
    sentences = read_hoc_tsv(shared_data / "dc" / "hoc" / f"{split}.tsv")
    merged = hoc_abstracts(sentences)
    assert len(merged) == abstracts
    assert [a.document for a in merged] == list(dict.fromkeys(s.document for s in sentences))
    assert all(a.labels for a in merged)
    assert sum(len(a.labels) for a in merged) == positives


def test_bioasq_factoid_snippets_and_questions(shared_data):
    folder = shared_data / "qa" / "bioasq"
    train = read_squad_json(folder / "BioASQ-train-factoid-7b.json")
    test = read_squad_json(folder / "BioASQ-test-factoid-7b.json")
    assert (len(train), len({s.question_id for s in train})) == (4231, 530)
    assert (len(test), len({s.question_id for s in test})) == (512, 162)
    first = train[0]
    assert (first.question_id, first.answers, first.starts) == (
        "56bc751eac7ad10019000013",
        ("Bazex syndrome",),
        (31,),
    )
    assert all(s.answers == () for s in test)


def test_bioasq_golden_and_yesno(shared_data):
    folder = shared_data / "qa" / "bioasq"
    golden = read_bioasq_golden(folder / "7B_golden.json")
    kinds = [question.type for question in golden.values()]
    assert (kinds.count("factoid"), kinds.count("yesno"), kinds.count("list")) == (162, 140, 88)
    assert golden["5be48c39133db5eb7800001d"].answer == ("PD-L1 status",)
    yesno = read_yesno_json(folder / "BioASQ-test-yesno-7b.json")
    assert (len(yesno), len({example.group for example in yesno})) == (488, 140)
    answers = [golden[q].answer for q in {example.group for example in yesno}]
    assert (answers.count("yes"), answers.count("no")) == (94, 46)


def test_nli_jsonl_pairs(tmp_path):
    path = write(
        tmp_path / "a.jsonl",
        '{"sentence1": "No fever.", "sentence2": "Has fever.", "gold_label": "contradiction", '
        '"pairID": "p1"}\n\n{"sentence1": "A", "sentence2": "B", "gold_label": "neutral"}\n',
    )
    first, second = read_nli_jsonl(path)
    assert (first.id, first.text, first.text_pair, first.label) == (
        "p1",
        "No fever.",
        "Has fever.",
        "contradiction",
    )
    assert (second.id, second.line) == ("1", 3)


SQUAD_OK = {
    "data": [
        {
            "paragraphs": [
                {
                    "context": "BRCA1 causes cancer.",
                    "qas": [
                        {
                            "id": "0123456789abcdef01234567_001",
                            "question": "What?",
                            "answers": [{"text": "BRCA1", "answer_start": 0}],
                        }
                    ],
                }
            ]
        }
    ]
}


def squad(answer_start: int = 0, qas_id: str = "0123456789abcdef01234567_001") -> str:
    text = json.dumps(SQUAD_OK, indent=1)
    return text.replace('"answer_start": 0', f'"answer_start": {answer_start}').replace(
        "0123456789abcdef01234567_001", qas_id
    )


@pytest.mark.parametrize(
    ("reader", "text", "message"),
    [
        (
            read_hoc_tsv,
            "labels\tsentence\tindex\n0_1,1_2\ts\td_s0\n",
            r"a\.tsv:2: malformed labels",
        ),
        (read_hoc_tsv, "0_1\ts\n", r"a\.tsv:1: expected 3 tab-separated columns"),
        (
            read_nli_jsonl,
            '{"sentence1": "a", "sentence2": "b"}\n',
            r"a\.tsv:1: missing .*gold_label",
        ),
        (read_nli_jsonl, '{"sentence1": "a",\n', r"a\.tsv:1: malformed JSON"),
        (
            read_squad_json,
            squad(answer_start=1),
            r"a\.tsv:\d+: .*_001: answer 'BRCA1' at offset 1 "
            r"does not match its context \('RCA1 '",
        ),
        (read_squad_json, squad(qas_id="q1"), r"a\.tsv:\d+: id 'q1' does not start with a 24"),
        (read_squad_json, "[1, 2", r"a\.tsv:1: malformed JSON"),
        (read_squad_json, '{"data": []}', r"a\.tsv: no examples"),
    ],
)
def test_malformed_new_formats_name_file_and_line(tmp_path, reader, text, message):
    with pytest.raises(DatasetFormatError, match=message):
        reader(write(tmp_path / "a.tsv", text))


def test_squad_error_names_the_line_of_the_question(tmp_path):
    path = write(tmp_path / "a.tsv", squad(answer_start=3))
    line = next(n for n, row in enumerate(squad().splitlines(), 1) if "_001" in row)
    with pytest.raises(DatasetFormatError, match=rf"a\.tsv:{line}: "):
        read_squad_json(path)


def test_pubmedqa_one_example_per_question(tmp_path):
    from biocompact.taskfiles.bioasq import read_pubmedqa_json

    entries = {
        "123": {"QUESTION": "Does X help?", "CONTEXTS": ["A.", "B."], "final_decision": "maybe"},
        "456": {"QUESTION": "Q?", "CONTEXTS": ["C."]},
    }
    path = write(tmp_path / "a.json", json.dumps({"123": entries["123"]}, indent=1))
    (example,) = read_pubmedqa_json(path)
    assert (example.id, example.text, example.text_pair, example.label, example.group) == (
        "123",
        "Does X help?",
        "A. B.",
        "maybe",
        "123",
    )
    bad = write(tmp_path / "b.json", json.dumps(entries, indent=1))
    with pytest.raises(DatasetFormatError, match=r"b\.json:\d+: 456: needs QUESTION"):
        read_pubmedqa_json(bad)
