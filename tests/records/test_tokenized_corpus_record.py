"""A tokenised corpus's record (results/pretraining_data/{vocab}.json) read into its
dataclass and written back unchanged; a malformed one refused, naming its file."""

from __future__ import annotations

import json

import pytest

from biocompact.files.atomic import write_json
from biocompact.records.base import record_data
from biocompact.records.tokenized_corpus import TokenizedCorpusRecord

# as rule tokenize_corpus writes it
RECORD = {
    "max_seq_length": 64,
    "heldout_fraction": 0.05,
    "packing": "best_fit",
    "sequences": {"train": 7973, "validation": 455},
}


def test_a_tokenized_corpus_record_reads_back_and_writes_the_same_file(tmp_path):
    path = tmp_path / "wordpiece.json"
    write_json(path, RECORD)
    read = TokenizedCorpusRecord.read(path)
    assert (read.max_seq_length, read.packing, read.sequences["validation"]) == (
        64,
        "best_fit",
        455,
    )
    assert list(record_data(read).items()) == list(RECORD.items())
    again = tmp_path / "again.json"
    write_json(again, record_data(read))
    assert again.read_bytes() == path.read_bytes()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", "not a JSON tokenised corpus record"),
        (json.dumps({**RECORD, "vocab": "v"}), r"keys of no tokenised corpus record: \['vocab'\]"),
        (
            json.dumps({k: v for k, v in RECORD.items() if k != "sequences"}),
            r"a malformed tokenised corpus record: it lacks \['sequences'\]",
        ),
    ],
)
def test_a_malformed_tokenized_corpus_record_is_refused_naming_its_file(tmp_path, content, message):
    path = tmp_path / "wordpiece.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=message) as error:
        TokenizedCorpusRecord.read(path)
    assert str(error.value).startswith(f"{path}: ")
