"""Each distillation method's options (biocompact.distillation_methods, parsed by
biocompact.distillation.methods): defaults, the check and the options an entry sets."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from biocompact.distillation.methods import (
    OPTION_KEYS,
    DistillationOptions,
    method_options,
    set_options,
)
from biocompact.distillation_methods import (
    DEFAULT_METHOD,
    DISTILLATION_METHODS,
    DistillationMethod,
)
from biocompact.workflow.config_schema import read_config_file

SCHEMA = Path(__file__).resolve().parents[2] / "workflow" / "schemas" / "config.schema.yaml"


def test_each_method_reads_alpha_and_only_its_own_options():
    declared = {"objective": "X", "card": "x", "citation": "x", "alpha": {"a": 1.0}}
    assert DistillationMethod("x", **declared).options == ("alpha",)
    assert DistillationMethod("x", **declared, temperature=2.0, section=("k",)).options == (
        "alpha",
        "temperature",
        "x",
    )
    assert DistillationMethod("x", **declared, temperature=1.0, layer_wise=True).options == (
        "alpha",
        "temperature",
        "layer_map",
    )


def test_set_options_leave_out_the_schemas_nulls_and_the_other_keys():
    entry = {
        "teacher": "teacher",
        "steps": 10,
        "temperature": None,
        "alpha": {},
        "layer_map": None,
        "minilmv2": {"relation_heads": None, "teacher_layer": 3},
    }
    assert set_options(entry) == {"minilmv2": {"teacher_layer": 3}}
    assert set_options({**entry, "minilmv2": {"relation_heads": None}}) == {}
    assert set_options({"temperature": 1.5, "alpha": {"mlm": 0.0}}) == {
        "temperature": 1.5,
        "alpha": {"mlm": 0.0},
    }


@pytest.mark.parametrize(
    ("method", "entry", "message"),
    [
        (
            "mlm",
            {"temperature": 2.0},
            "temperature is not an option of method 'mlm' (its options: alpha)",
        ),
        (
            "distilbert",
            {"layer_map": [1, 2]},
            "layer_map is not an option of method 'distilbert' (its options: alpha, temperature)",
        ),
        (
            "compact",
            {"minilmv2": {"teacher_layer": 2, "relation_heads": None}},
            "minilmv2.teacher_layer is not an option of method 'compact' "
            "(its options: alpha, temperature, layer_map)",
        ),
        (
            "tinybert",
            {"alpha": {"mlm": 1.0}},
            "alpha.mlm is not a loss term of the tinybert method; "
            "its terms are ['embedding', 'layer', 'output']",
        ),
        (
            "minilmv2",
            {"minilmv2": {"heads": 4}},
            "minilmv2.heads is not an option of the minilmv2 method; "
            "its options are ['relation_heads', 'teacher_layer']",
        ),
        ("minilm", {}, "unknown distillation method 'minilm'"),
    ],
)
def test_an_option_the_method_does_not_read_is_named(method, entry, message):
    with pytest.raises(ValueError) as raised:
        method_options(method, entry, "config: distillation.student")
    assert str(raised.value).startswith(f"config: distillation.student: {message}")
    with pytest.raises(ValueError) as raised:
        method_options(method, entry)
    assert str(raised.value).startswith(message)


def test_the_options_a_method_reads_pass_and_null_ones_take_its_defaults():
    entry = {"temperature": None, "minilmv2": {"relation_heads": None, "teacher_layer": None}}
    for method, spec in DISTILLATION_METHODS.items():
        assert method_options(method, entry) == DistillationOptions(
            method, spec.alpha, spec.temperature
        )
    assert method_options(
        "tinybert", {"temperature": 1.5, "layer_map": [2, 4], "alpha": {"output": 0.5}}
    ) == DistillationOptions(
        "tinybert", {"embedding": 1.0, "layer": 1.0, "output": 0.5}, 1.5, layer_map=[2, 4]
    )
    assert method_options("minilmv2", {"minilmv2": {"teacher_layer": 3}}) == DistillationOptions(
        "minilmv2", {"qq": 1.0, "kk": 1.0, "vv": 1.0}, section={"teacher_layer": 3}
    )


def test_the_table_is_light_enough_for_the_dag():
    """The workflow imports it while the DAG is built: no torch."""
    code = "import sys, biocompact.distillation.methods; print('torch' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"


def test_the_schema_offers_the_options_and_terms_of_the_methods():
    schema = read_config_file(SCHEMA)
    entry = schema["properties"]["distillation"]["additionalProperties"]["properties"]
    assert set(OPTION_KEYS) <= set(entry)
    assert entry["method"]["enum"] == list(DISTILLATION_METHODS)
    assert entry["method"]["default"] == DEFAULT_METHOD
    assert set(entry["alpha"]["properties"]) == {
        term for spec in DISTILLATION_METHODS.values() for term in spec.alpha
    }
    sections = {name: spec.section for name, spec in DISTILLATION_METHODS.items() if spec.section}
    assert {name: tuple(entry[name]["properties"]) for name in sections} == sections
