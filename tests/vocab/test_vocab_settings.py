"""A vocabulary entry of the config parsed into VocabularySettings: fields, defaults, checks;
rule train_vocabulary's params, which hold one, parsed into VocabularyTraining."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import yaml

from biocompact.vocab.settings import VocabularySettings, VocabularyTraining

REPO_ROOT = Path(__file__).resolve().parents[2]
SCHEMA = REPO_ROOT / "workflow" / "schemas" / "config.schema.yaml"


def test_the_schema_properties_are_the_fields():
    schema = yaml.safe_load(SCHEMA.read_text(encoding="utf-8"))
    options = set(schema["properties"]["vocabularies"]["additionalProperties"]["properties"])
    assert options == {field.name for field in dataclasses.fields(VocabularySettings)}


def test_an_entry_parses_and_gives_its_trainer_options():
    settings = VocabularySettings.from_entry(
        {"type": "bpe", "vocab_size": 500, "extra_special_tokens": ["@GENE$"]}
    )
    assert settings == VocabularySettings("bpe", vocab_size=500, extra_special_tokens=("@GENE$",))
    assert settings.trainer_options() == {
        "vocab_size": 500,
        "lowercase": True,
        "min_frequency": 2,
        "limit_alphabet": 1000,
        "extra_special_tokens": ("@GENE$",),
    }


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"type": "sentencepiece"}, "unknown vocabulary type 'sentencepiece'"),
        ({"type": "bpe", "sample_fraction": 0}, "sample_fraction must be in"),
        ({"type": "bpe", "size": 10}, "vocabularies: unknown setting 'size'"),
    ],
)
def test_bad_entries_are_named(entry, message):
    with pytest.raises(ValueError, match=message):
        VocabularySettings.from_entry(entry)


TRAINING_PARAMS = {
    "name": "bpe-small",
    "settings": {"type": "bpe", "vocab_size": 500, "extra_special_tokens": ["@GENE$"]},
    "heldout_fraction": 0.01,
    "max_heldout_sentences": 20,
}


def test_the_training_params_parse_with_their_vocabulary_entry():
    training = VocabularyTraining.from_entry(TRAINING_PARAMS, "rule train_vocabulary")
    assert training == VocabularyTraining(
        name="bpe-small",
        settings=VocabularySettings("bpe", vocab_size=500, extra_special_tokens=("@GENE$",)),
        heldout_fraction=0.01,
        max_heldout_sentences=20,
    )


@pytest.mark.parametrize(
    ("params", "message"),
    [
        (
            {**TRAINING_PARAMS, "settings": {"type": "bpe", "size": 10}},
            "vocabularies: unknown setting 'size'",
        ),
        (
            {**TRAINING_PARAMS, "max_heldout_sentences": "20"},
            "rule train_vocabulary: max_heldout_sentences is '20', not an integer",
        ),
        ({**TRAINING_PARAMS, "seed": 1}, "rule train_vocabulary: unknown setting 'seed'"),
    ],
)
def test_bad_training_params_are_named(params, message):
    with pytest.raises(ValueError, match=message):
        VocabularyTraining.from_entry(params, "rule train_vocabulary")
