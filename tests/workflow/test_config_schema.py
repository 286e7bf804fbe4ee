"""The config schema's errors, one line per problem naming the file that set the key (and
how to write a number that YAML read as text), and config files' YAML errors naming file and
line, those of Snakemake's --configfile too."""

from __future__ import annotations

import subprocess
import sys

import pytest
import yaml
from snakemake_runs import SNAKEMAKE

from biocompact.workflow.config_schema import (
    ConfigError,
    check_command_line_config_files,
    read_config_file,
    typed_command_line_values,
    validate_config,
)

SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "finetuning": {
            "type": "object",
            "additionalProperties": False,
            "default": {},
            "properties": {
                "seeds": {"type": "array", "items": {"type": "integer"}, "default": [1, 2]},
                "models": {"type": "array", "default": []},
                "learning_rate": {"type": "number"},
                "max_examples": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                "tasks": {
                    "type": "object",
                    "default": {},
                    "additionalProperties": {
                        "type": "object",
                        "anyOf": [{"required": ["dataset"]}, {"required": ["train"]}],
                    },
                },
            },
        },
        "report": {"type": "object", "default": {}, "properties": {"title": {"type": "string"}}},
    },
}


def _problems(config: dict, sources) -> list[str]:
    with pytest.raises(ConfigError) as error:
        validate_config(config, SCHEMA, sources)
    return str(error.value).splitlines()


def test_a_valid_config_gets_its_defaults():
    config = {"finetuning": {"models": ["a"]}}
    validate_config(config, SCHEMA, [("a.yaml", config)])
    assert config == {"finetuning": {"models": ["a"], "seeds": [1, 2], "tasks": {}}, "report": {}}


def test_each_problem_is_one_line_naming_the_last_file_that_set_the_key():
    first = {"finetuning": {"seeds": ["x"], "modles": []}}
    second = {"finetuning": {"seeds": [1, "y"]}, "reprot": {}}
    config = {"finetuning": {"seeds": [1, "y"], "modles": []}, "reprot": {}}
    assert _problems(config, [("first.yaml", first), ("second.yaml", second)]) == [
        "first.yaml: finetuning.modles: unknown key; did you mean 'models'?",
        "second.yaml: finetuning.seeds.1: 'y' is not of type 'integer'",
        "second.yaml: reprot: unknown key; did you mean 'report'?",
    ]


def test_an_unknown_key_far_from_any_names_where_that_key_lives():
    config = {"seeds": [1]}
    assert _problems(config, [("--config", config)]) == [
        "--config: seeds: unknown key; did you mean finetuning.seeds?"
    ]


def test_an_unknown_key_like_no_other_lists_the_keys_beside_it():
    config = {"zzz": 1}
    assert _problems(config, [("a.yaml", config)]) == [
        "a.yaml: zzz: unknown key; known: finetuning, report"
    ]


def test_alternatives_are_named_in_one_line():
    config = {"finetuning": {"tasks": {"re": {"trian": "x"}}}}
    assert _problems(config, [("a.yaml", config)]) == [
        "a.yaml: finetuning.tasks.re: needs one of: 'dataset' is a required property; "
        "or 'train' is a required property"
    ]


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        (
            {"learning_rate": "2e-4"},
            "learning_rate: '2e-4' is not of type 'number' (YAML reads 2e-4 as text: write "
            "2.0e-4, unquoted)",
        ),
        (
            {"max_examples": "7"},
            "max_examples: needs one of: '7' is not of type 'integer'; or '7' is not of type "
            "'null' (YAML reads 7 as text: write 7, unquoted)",
        ),
        ({"learning_rate": "fast"}, "learning_rate: 'fast' is not of type 'number'"),
    ],
)
def test_a_number_yaml_read_as_text_is_named_with_how_to_write_it(entry, problem):
    config = {"finetuning": entry}
    assert _problems(config, [("a.yaml", config)]) == [f"a.yaml: finetuning.{problem}"]


def test_a_yaml_syntax_error_names_file_line_and_column(tmp_path):
    path = tmp_path / "study.yaml"
    path.write_text("finetuning:\n  seeds: [1, 2\n  models: []\n")
    with pytest.raises(ConfigError, match=r"study\.yaml, line 3, column 9: expected ',' or ']'"):
        read_config_file(path)


def test_a_config_file_must_be_a_mapping(tmp_path):
    path = tmp_path / "list.yaml"
    path.write_text("- a\n- b\n")
    with pytest.raises(ConfigError, match="list.yaml: a config file must be a mapping"):
        read_config_file(path)
    (tmp_path / "empty.yaml").write_text("")
    assert read_config_file(tmp_path / "empty.yaml") == {}


def test_command_line_values_get_yaml_types():
    # what Snakemake's --config parser makes of `finetuning={seeds: [1, 2], bf16: true, x: a}`
    parsed = yaml.load("{seeds: [1, 2], bf16: true, x: a, y: null, z: 1.5}", yaml.BaseLoader)
    assert typed_command_line_values({"finetuning": parsed}) == {
        "finetuning": {"seeds": [1, 2], "bf16": True, "x": "a", "y": None, "z": 1.5}
    }


def test_the_command_names_each_config_file_with_a_yaml_error(tmp_path):
    (tmp_path / "good.yaml").write_text("finetuning: {seeds: [1]}\n")
    (tmp_path / "bad.yaml").write_text("finetuning:\n\tseeds: [1]\n")
    result = subprocess.run(
        [sys.executable, "-m", "biocompact.workflow.config_schema", "good.yaml", "bad.yaml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "bad.yaml, line 2, column 1: found character '\\t' that cannot start any token"
    ]


def test_the_config_files_of_a_snakemake_command_line_are_checked(tmp_path, monkeypatch):
    """--configfile and --configfiles, one file or several, `=` or not; --config is another
    option (not an abbreviation), and the other options are left alone."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "good.yaml").write_text("finetuning: {seeds: [1]}\n")
    (tmp_path / "bad.yaml").write_text("finetuning:\n\tseeds: [1]\n")
    (tmp_path / "list.yaml").write_text("- a\n")
    check_command_line_config_files(["-n", "--config", "seeds=[1]", "--configfile", "good.yaml"])
    with pytest.raises(SystemExit) as stopped:
        check_command_line_config_files(
            ["--configfiles", "good.yaml", "bad.yaml", "-n", "--configfile=list.yaml"]
        )
    assert str(stopped.value).splitlines() == [
        "bad.yaml, line 2, column 1: found character '\\t' that cannot start any token",
        "list.yaml: a config file must be a mapping of keys, not ['a']",
    ]


@pytest.mark.parametrize("profile", ["local", "slurm"])
def test_snakemake_names_the_file_and_line_of_a_config_file_yaml_error(
    tmp_path, repo_root, profile
):
    """The profiles check the --configfile files before Snakemake reads them (its own
    message: "Config file is not valid JSON or YAML", without file or line)."""
    (tmp_path / "study.yaml").write_text("finetuning:\n  seeds: [1, 2\n  models: [a]\n")
    result = subprocess.run(
        [*SNAKEMAKE, "--profile", str(repo_root / profile), "-n", "--configfile", "study.yaml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1
    assert result.stderr.splitlines()[-1] == (
        "study.yaml, line 3, column 9: expected ',' or ']', but got ':'"
    )


def test_a_long_value_is_cut_short():
    config = {"finetuning": {"models": {"a": "x" * 300}}}
    (line,) = _problems(config, [("a.yaml", config)])
    assert line.startswith("a.yaml: finetuning.models: {'a': 'xxx")
    assert line.endswith("...") and len(line) == len("a.yaml: finetuning.models: ") + 120 + 3
