"""A distillation entry of the config parsed into DistillationSettings: fields, defaults, checks."""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path

import pytest
import yaml

from biocompact.distillation.methods import method_options
from biocompact.distillation.settings import DistillationSettings
from biocompact.entries import parse_entry
from biocompact.workflow.config_schema import read_config_file, validate_config

REPO_ROOT = Path(__file__).resolve().parents[2]
SCHEMA = REPO_ROOT / "workflow" / "schemas" / "config.schema.yaml"
ENTRY = {"teacher": "teacher", "steps": 10, "batch_size": 8, "learning_rate": 1e-3}


def test_a_validated_entry_parses_with_the_schema_defaults():
    config = yaml.safe_load((REPO_ROOT / "config.yaml").read_text(encoding="utf-8"))
    config["distillation"] = {
        "student": {**ENTRY, "method": "tinybert", "alpha": {"layer": [1.0, 2.0]}}
    }
    validate_config(config, read_config_file(SCHEMA), [("config.yaml", config)])
    entry = {
        key: value for key, value in config["distillation"]["student"].items() if key != "resources"
    }
    settings = parse_entry(DistillationSettings, entry)
    assert settings == DistillationSettings(
        teacher="teacher",
        steps=10,
        batch_size=8,
        learning_rate=1e-3,
        method="tinybert",
        alpha={"layer": [1.0, 2.0]},
    )
    assert settings.options == method_options("tinybert", {"alpha": {"layer": [1.0, 2.0]}})
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.method = "compact"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"method": "minilm"}, "unknown distillation method 'minilm'"),
        (
            {"method": "distilbert", "alpha": {"layer": 1.0}},
            "alpha.layer is not a loss term of the distilbert",
        ),
        (
            {"method": "lewis", "layer_map": [1, 2]},
            r"layer_map is not an option of method 'lewis' \(its options: alpha, temperature\)",
        ),
        (
            {"student_init": "random", "student_layers": [0]},
            "student_layers is used with student_init teacher_layers",
        ),
        (
            {"student_architecture": {"preset": "demo-2L-128"}},
            "student_architecture is used with student_init random",
        ),
        ({"resources": {"gpus": 1}}, "distillation: unknown setting 'resources'"),
        (
            {"method": "tinybert", "minilmv2": {"teacher_layer": 3}},
            "minilmv2.teacher_layer is not an option of method 'tinybert'",
        ),
        (
            {"method": "minilmv2", "alpha": {"mlm": 1.0}},
            "alpha.mlm is not a loss term of the minilmv2 method",
        ),
        (
            {"method": "mlm", "temperature": 2.0},
            r"temperature is not an option of method 'mlm' \(its options: alpha\)",
        ),
        (
            {"method": "minilmv2", "temperature": 1.0},
            r"temperature is not an option of method 'minilmv2' \(its options: alpha, minilmv2\)",
        ),
        (
            {"method": "minilmv2", "minilmv2": {"heads": 4}},
            "distillation.minilmv2: unknown setting 'heads'",
        ),
    ],
)
def test_bad_entries_are_named(options, message):
    with pytest.raises(ValueError, match=message):
        parse_entry(DistillationSettings, {**copy.deepcopy(ENTRY), **options})


def test_minilmv2_options_parse_and_unset_ones_are_dropped():
    config = yaml.safe_load((REPO_ROOT / "config.yaml").read_text(encoding="utf-8"))
    config["distillation"] = {
        "student": {**ENTRY, "method": "minilmv2", "minilmv2": {"relation_heads": 12}},
        "other": dict(ENTRY),
    }
    validate_config(config, read_config_file(SCHEMA), [("config.yaml", config)])
    assert config["distillation"]["other"]["minilmv2"] == {
        "relation_heads": None,
        "teacher_layer": None,
    }
    parsed = {
        name: parse_entry(
            DistillationSettings, {key: value for key, value in entry.items() if key != "resources"}
        )
        for name, entry in config["distillation"].items()
    }
    assert parsed["student"].options == method_options(
        "minilmv2", {"minilmv2": {"relation_heads": 12}}
    )
    assert parsed["student"].options.section == {"relation_heads": 12}
    assert parsed["other"].options == method_options("distilbert")
