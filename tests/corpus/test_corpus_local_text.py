"""The local-text corpus source: layouts, gzip, statistics and the bad-line errors."""

import gzip
import json

import pytest

from biocompact.corpus.local_text import LocalTextError, read_documents, split_local_text
from biocompact.corpus.stats import sum_corpus_stats
from biocompact.records.corpus_statistics import TextTotals


def test_lines_jsonl_and_document_layouts(tmp_path):
    lines = tmp_path / "notes.txt"
    lines.write_text("First note. It has two sentences.\nSecond note.\n", encoding="utf-8")
    jsonl = tmp_path / "notes.jsonl.gz"
    with gzip.open(jsonl, "wt", encoding="utf-8") as handle:
        handle.write(json.dumps({"id": 1, "body": "Fever was noted. No rash."}) + "\n")
        handle.write(json.dumps({"body": "Discharged home."}) + "\n")
    document = tmp_path / "10022435.txt"
    document.write_text("A title\n\nSentence one.\nSentence two.\n", encoding="utf-8")

    assert list(read_documents([lines])) == ["First note. It has two sentences.", "Second note."]
    assert list(read_documents([jsonl], "jsonl", "body")) == [
        "Fever was noted. No rash.",
        "Discharged home.",
    ]
    assert (
        list(read_documents([document, document], "document"))
        == ["A title\nSentence one.\nSentence two."] * 2
    )


def test_split_local_text_writes_sentences_and_statistics(tmp_path):
    source = tmp_path / "notes.txt"
    source.write_text("Fever was noted. No rash was seen.\nDischarged home.\n", encoding="utf-8")
    sentences, stats = tmp_path / "notes.txt.gz", tmp_path / "notes.stats.json"

    result = split_local_text([source], sentences, stats)

    with gzip.open(sentences, "rt", encoding="utf-8") as handle:
        assert handle.read() == "Fever was noted.\nNo rash was seen.\n\nDischarged home.\n\n"
    assert (
        result
        == json.loads(stats.read_text())
        == {
            "documents": 2,
            "sentences": 3,
            "words": 3 + 4 + 2,
            "characters": 16 + 17 + 16,
            "per_year": {"unknown": 2},
            "skipped": {"no_text": 0},
            "records": 2,
        }
    )
    total = sum_corpus_stats(
        [], [], [], tmp_path / "stats.json", text_stats=[stats], text_sources=["notes"]
    )
    assert total.files == ["text/notes"]
    assert total.totals.records == 2 and total.totals.sentences == 3
    assert total.sources is not None
    assert total.sources["text"] == TextTotals(
        records=2, documents=2, sentences=3, words=3 + 4 + 2, characters=49
    )
    assert total.skipped == {"no_text": 0}


@pytest.mark.parametrize(
    ("content", "layout", "message"),
    [
        (b"Good line.\n\xff\xfe bad bytes\n", "lines", "line 2: not UTF-8 (byte 0xff at column 1)"),
        (b"Good line.\n   \nAnother.\n", "lines", "line 2: empty line"),
        (b'{"text": "ok"}\n{"body": "no text field"}\n', "jsonl", "line 2: no 'text' field"),
        (b'{"text": "ok"}\n{"text": "unterminated\n', "jsonl", "line 2: malformed JSON"),
        (b'{"text": "ok"}\n["text"]\n', "jsonl", "line 2: no 'text' field"),
        (b'{"text": 3}\n', "jsonl", "line 1: 'text' is a int, not a string"),
        (b'{"text": "  "}\n', "jsonl", "line 1: 'text' is empty"),
        (b"\n  \n", "document", "the file holds no text"),
        (b"Title\n\xc3\x28\n", "document", "line 2: not UTF-8"),
    ],
)
def test_bad_lines_name_file_and_line(tmp_path, content, layout, message):
    path = tmp_path / "bad.txt"
    path.write_bytes(content)
    with pytest.raises(LocalTextError) as error:
        list(read_documents([path], layout))
    assert str(error.value).startswith(f"{path}")
    assert message in str(error.value)


def test_bad_line_in_a_gzipped_file_fails_the_split(tmp_path):
    path = tmp_path / "notes.txt.gz"
    with gzip.open(path, "wb") as handle:
        handle.write(b"One.\nTwo.\n\nFour.\n")
    sentences = tmp_path / "out.txt.gz"
    with pytest.raises(LocalTextError, match=r"notes\.txt\.gz, line 3: empty line"):
        split_local_text([path], sentences, tmp_path / "out.stats.json")
    assert not sentences.exists()


def test_unknown_layout(tmp_path):
    with pytest.raises(ValueError, match="unknown local text format 'csv'"):
        list(read_documents([tmp_path / "x"], "csv"))
