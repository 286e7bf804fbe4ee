"""A pretraining entry of the config parsed into PretrainingSettings: fields, defaults, checks."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from biocompact.entries import parse_entry
from biocompact.pretraining.settings import PretrainingSettings

REPO_ROOT = Path(__file__).resolve().parents[2]
ENTRY = {"vocabulary": "v", "steps": 10, "batch_size": 8, "learning_rate": 1e-3}


def test_the_demo_entries_parse():
    config = yaml.safe_load((REPO_ROOT / "config.yaml").read_text(encoding="utf-8"))
    for entry in config["pretraining"].values():
        settings = parse_entry(
            PretrainingSettings, {k: v for k, v in entry.items() if k != "resources"}
        )
        assert settings.training.steps == entry["steps"] and settings.init == "scratch"
    assert parse_entry(
        PretrainingSettings, {**ENTRY, "family": "electra", "warmup_steps": 3}
    ) == PretrainingSettings(
        vocabulary="v", steps=10, batch_size=8, learning_rate=1e-3, warmup_steps=3, family="electra"
    )


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"family": "gpt2"}, "unknown model family 'gpt2'"),
        (
            {"family": "roberta", "objective": "nsp"},
            "objective 'nsp' trains models of family bert, not 'roberta'",
        ),
        ({"resources": {"gpus": 1}}, "pretraining: unknown setting 'resources'"),
    ],
)
def test_bad_entries_are_named(options, message):
    with pytest.raises(ValueError, match=message):
        parse_entry(PretrainingSettings, {**ENTRY, **options})
