"""A vocabulary entry of the config parsed into VocabularySettings: fields, defaults, checks;
rule train_vocabulary's params, which hold one, parsed into VocabularyTraining."""

from __future__ import annotations

import typing

import pytest

from biocompact.entries import parse_entry
from biocompact.vocab.settings import PRETRAINED, VocabularySettings, VocabularyTraining


def test_the_types_are_the_trainers_and_pretrained():
    from biocompact.vocab.train import BUILDERS

    declared = typing.get_args(typing.get_type_hints(VocabularySettings)["type"])
    assert set(declared) == {*BUILDERS, PRETRAINED}


def test_an_entry_parses_and_gives_its_trainer_options():
    settings = parse_entry(
        VocabularySettings, {"type": "bpe", "vocab_size": 500, "extra_special_tokens": ["@GENE$"]}
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
        ({"type": "sentencepiece"}, "vocabularies: type is 'sentencepiece', not 'wordpiece'"),
        ({"type": "bpe", "sample_fraction": 0}, "sample_fraction: Input should be greater than 0"),
        ({"type": "bpe", "size": 10}, "vocabularies: unknown setting 'size'"),
    ],
)
def test_bad_entries_are_named(entry, message):
    with pytest.raises(ValueError, match=message):
        parse_entry(VocabularySettings, entry)


TRAINING_PARAMS = {
    "name": "bpe-small",
    "settings": {"type": "bpe", "vocab_size": 500, "extra_special_tokens": ["@GENE$"]},
    "heldout_fraction": 0.01,
    "max_heldout_sentences": 20,
}


def test_the_training_params_parse_with_their_vocabulary_entry():
    training = parse_entry(VocabularyTraining, TRAINING_PARAMS, "rule train_vocabulary")
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
        parse_entry(VocabularyTraining, params, "rule train_vocabulary")
