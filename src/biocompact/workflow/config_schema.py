"""Validating the merged config against the schema, one short line per problem, and
reading config files with errors that name the file and line (light: run when the DAG is
built).

A problem's line names the config file that set the key (of several, the last one that
sets it; ``--config`` for a command-line value), the key path, what is wrong and, for an
unknown key, the closest valid one; for a number that YAML read as text (``2e-4``), how to
write it (``2.0e-4``), as the entries' own check says.
"""

from __future__ import annotations

import argparse
import copy
import difflib
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError
from jsonschema.protocols import Validator

from biocompact.entries import number_as_text_hint

COMMAND_LINE = "--config"
LONGEST_MESSAGE = 120  # characters of what is wrong (jsonschema quotes whole values)


class ConfigError(ValueError):
    """The config (a file or the merged config) is not valid: one line per problem."""


def read_config_file(path: str | Path) -> dict:
    """The mapping in YAML (or JSON) file ``path``; a syntax error names the file and line."""
    try:
        content = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = f", line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = error.problem or error.context or "not valid YAML"
        raise ConfigError(f"{path}{where}: {problem}") from None
    if content is None:
        return {}
    if not isinstance(content, dict):
        raise ConfigError(f"{path}: a config file must be a mapping of keys, not {content!r}")
    return content


def typed_command_line_values(values: Any) -> Any:
    """``--config`` values with YAML types: Snakemake reads ``KEY=[1, 2]`` or ``KEY={a: 1}``
    with every nested value a string (``['1', '2']``); these become numbers, booleans and
    nulls where YAML reads them so."""
    if isinstance(values, Mapping):
        return {key: typed_command_line_values(value) for key, value in values.items()}
    if isinstance(values, list):
        return [typed_command_line_values(value) for value in values]
    if isinstance(values, str):
        try:
            value = yaml.safe_load(values)
        except yaml.YAMLError:
            return values
        return value if isinstance(value, int | float | bool) or value is None else values
    return values


def _with_defaults(validator_class: type[Validator]) -> type[Validator]:
    """``validator_class`` that fills in each property's default before validating it."""
    validate_properties = validator_class.VALIDATORS["properties"]

    def properties(validator, properties, instance, schema) -> Iterator[ValidationError]:
        if isinstance(instance, dict):
            for name, subschema in properties.items():
                if "default" in subschema:
                    instance.setdefault(name, copy.deepcopy(subschema["default"]))
        yield from validate_properties(validator, properties, instance, schema)

    return validators.extend(validator_class, {"properties": properties})


DefaultFillingValidator = _with_defaults(Draft202012Validator)


def validate_config(config: dict, schema: Mapping, sources: Sequence[tuple[str, Mapping]]) -> None:
    """Fill in ``config``'s defaults from ``schema`` and raise ``ConfigError`` with one line
    per problem. ``sources`` are (name, content) of what set the config, in the order
    applied (config files, then ``--config``)."""
    validator = DefaultFillingValidator(schema)
    keys = list(_key_paths(schema))
    problems = [
        problem for error in validator.iter_errors(config) for problem in _problems(error, keys)
    ]
    if problems:
        lines = [
            f"{_source(sources, path)}: {_dotted(path)}: {what}"
            for path, what in sorted(problems, key=lambda problem: _dotted(problem[0]))
        ]
        raise ConfigError("\n".join(dict.fromkeys(lines)))


def _key_paths(schema: Mapping, prefix: str = "") -> Iterator[str]:
    """The dotted path of every key the schema names in nested ``properties``."""
    for name, subschema in schema.get("properties", {}).items():
        yield prefix + name
        if isinstance(subschema, Mapping):
            yield from _key_paths(subschema, f"{prefix}{name}.")


def _problems(error: ValidationError, key_paths: list[str]) -> list[tuple[list, str]]:
    """(key path, what is wrong) of each problem of ``error`` (one per unknown key)."""
    path = list(error.path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        assert isinstance(error.schema, Mapping)  # the schema that holds the keyword
        known = list(error.schema.get("properties", {}))
        return [
            ([*path, key], f"unknown key{_closest(str(key), known, key_paths)}")
            for key in error.instance
            if key not in known
        ]
    return [(path, _message(error))]


def _dotted(path: list) -> str:
    return ".".join(map(str, path)) or "(top level)"


def _closest(key: str, known: list[str], key_paths: list[str]) -> str:
    """The closest of the ``known`` keys beside it, else the keys of that name elsewhere."""
    matches = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    if matches:
        return f"; did you mean {matches[0]!r}?"
    elsewhere = [path for path in key_paths if path.rsplit(".", 1)[-1] == key]
    if elsewhere:
        return f"; did you mean {' or '.join(elsewhere)}?"
    return f"; known: {', '.join(known)}" if known else ""


def _message(error: ValidationError) -> str:
    if error.validator in ("anyOf", "oneOf") and error.context:
        alternatives = dict.fromkeys(_short(sub.message) for sub in error.context)
        message = "needs one of: " + "; or ".join(alternatives)
    else:
        message = _short(error.message)
    return message + (number_as_text_hint(error.instance) if _wants_a_number(error) else "")


def _wants_a_number(error: ValidationError) -> bool:
    """Whether ``error``, or one of its alternatives, asks for a number (``type``)."""
    for problem in (error, *error.context):
        if problem.validator == "type":
            types = problem.validator_value
            if {"number", "integer"} & set(types if isinstance(types, list) else [types]):
                return True
    return False


def _short(message: str) -> str:
    return message if len(message) <= LONGEST_MESSAGE else message[:LONGEST_MESSAGE] + "..."


def _source(sources: Sequence[tuple[str, Mapping]], path: list) -> str:
    """The last source that sets ``path``, else the last that sets its longest prefix."""
    for depth in range(len(path), 0, -1):
        for name, content in reversed(sources):
            if _sets(content, path[:depth]):
                return name
    return sources[-1][0] if sources else "config"


def _sets(content: Any, path: list) -> bool:
    for key in path:
        in_mapping = isinstance(content, Mapping) and key in content
        in_list = isinstance(content, list) and isinstance(key, int) and key < len(content)
        if not (in_mapping or in_list):
            return False
        content = content[key]
    return True


def _file_problems(paths: Sequence[str]) -> list[str]:
    """One line for each config file of ``paths`` that is not a valid YAML mapping."""
    problems = []
    for path in paths:
        try:
            read_config_file(path)
        except (ConfigError, OSError) as error:
            problems.append(str(error))
    return problems


def check_command_line_config_files(argv: Sequence[str]) -> None:
    """Exit with one line per ``--configfile`` of Snakemake's command line ``argv`` that is
    not a valid YAML mapping, naming its line. Snakemake reads those files before the
    workflow, and its message names neither file nor line; the profiles (``local/``,
    ``slurm/``) call this as Snakemake reads them, which it does first."""
    options = argparse.ArgumentParser(add_help=False, allow_abbrev=False)  # --config: another
    options.add_argument("--configfile", "--configfiles", nargs="+", action="extend", default=[])
    problems = _file_problems(options.parse_known_args(argv)[0].configfile)
    if problems:
        raise SystemExit("\n".join(problems))


def main(paths: Sequence[str]) -> int:
    """Check the YAML of config files, one line per file that is not valid (Snakemake reads
    ``--configfile`` files before the workflow and names neither file nor line)."""
    problems = _file_problems(paths)
    print("\n".join(problems) or f"{len(paths)} config file(s): valid YAML mappings")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
