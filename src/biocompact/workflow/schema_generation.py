"""The config schema, ``workflow/schemas/config.schema.yaml``, generated from the settings
classes: each field's type, default, constraints (``Annotated[int, Field(ge=1)]``) and
docstring. ``make schema`` writes it; a test keeps the checked-in file equal to what this
module generates, so the classes are the config's one description.

The style is that of a schema written by hand: no titles, a nullable scalar as a type list
(``type: [integer, "null"]``), every nested entry inline, and an entry whose default is the
class's own defaults written ``default: {}`` (the validator fills in the rest).
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import TypeAdapter
from pydantic._internal._docs_extraction import extract_docstrings_from_cls
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

from biocompact.workflow.config_sections import Config

SCHEMA_PATH = Path("workflow/schemas/config.schema.yaml")
HEADER = (
    "# Generated from the settings classes (biocompact.workflow.config_sections.Config and the\n"
    "# classes it names) by `make schema`: edit the classes, not this file.\n"
)


class ConfigStyle(GenerateJsonSchema):
    """pydantic's JSON schema in the style of a hand-written one (module docstring)."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False

    def dataclass_schema(self, schema: core_schema.DataclassSchema) -> JsonSchemaValue:
        generated = super().dataclass_schema(schema)
        generated.pop("title", None)
        properties = generated.get("properties", {})
        for name, description in _inherited_docstrings(schema["cls"]).items():
            if name in properties:
                properties[name].setdefault("description", description)
        return generated

    def typed_dict_schema(self, schema: core_schema.TypedDictSchema) -> JsonSchemaValue:
        generated = super().typed_dict_schema(schema)
        generated.pop("title", None)
        if generated.get("additionalProperties") is True:  # JSON Schema's default
            del generated["additionalProperties"]
        return generated

    def nullable_schema(self, schema: core_schema.NullableSchema) -> JsonSchemaValue:
        inner = self.generate_inner(schema["schema"])
        if isinstance(inner.get("type"), str) and "$ref" not in inner:
            return {**inner, "type": [inner["type"], "null"]}
        return super().nullable_schema(schema)

    def get_default_value(self, schema: core_schema.WithDefaultSchema) -> Any:
        if "default_factory" in schema and not schema.get("default_factory_takes_data"):
            default = schema["default_factory"]()  # type: ignore[call-arg]
        else:
            default = super().get_default_value(schema)
        if dataclasses.is_dataclass(default) and not isinstance(default, type):
            return {} if default == type(default)() else dataclasses.asdict(default)
        return default


def _inherited_docstrings(cls: type) -> dict[str, str]:
    """The field docstrings of dataclass ``cls``'s dataclass bases, a subclass's over its
    base's (pydantic reads those of ``cls`` alone), read by pydantic's own reader, the one its
    ``use_attribute_docstrings`` uses. That reader is private: pydantic is pinned
    (requirements.txt), and test_schema_generation fails if a new version reads otherwise."""
    docstrings: dict[str, str] = {}
    for base in reversed(cls.__mro__[1:]):
        if dataclasses.is_dataclass(base):
            docstrings.update(extract_docstrings_from_cls(base, use_inspect=True))
    return docstrings


def config_schema() -> dict[str, Any]:
    """The config's JSON schema (draft 2020-12), every ``$ref`` of a class written inline."""
    generated = TypeAdapter(Config).json_schema(schema_generator=ConfigStyle)
    generated = _inline(generated, generated.pop("$defs", {}))
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        **_one_line_descriptions(generated),
    }


def _one_line_descriptions(schema: Any) -> Any:
    """``schema`` with each description's whitespace (a docstring's line breaks) one space."""
    if isinstance(schema, list):
        return [_one_line_descriptions(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    return {
        key: " ".join(value.split())
        if key == "description" and isinstance(value, str)
        else _one_line_descriptions(value)
        for key, value in schema.items()
    }


def _inline(schema: Any, definitions: Mapping[str, Any]) -> Any:
    """``schema`` with each ``{"$ref": ...}`` replaced by the definition it names (merged
    with the keys beside it, which win: a field's own description and default)."""
    if isinstance(schema, list):
        return [_inline(item, definitions) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if "$ref" in schema:
        named = definitions[schema["$ref"].rsplit("/", 1)[-1]]
        beside = {key: value for key, value in schema.items() if key != "$ref"}
        return _inline({**named, **beside}, definitions)
    return {key: _inline(value, definitions) for key, value in schema.items()}


def schema_text() -> str:
    """The schema file's text: the header, then the schema as YAML."""
    body = yaml.safe_dump(
        json.loads(json.dumps(config_schema())), sort_keys=False, width=100, allow_unicode=True
    )
    return HEADER + body


def main(argv: list[str]) -> int:
    """Write the schema to ``argv[0]`` (default ``SCHEMA_PATH``), run in the checkout."""
    path = Path(argv[0]) if argv else SCHEMA_PATH
    path.write_text(schema_text(), encoding="utf-8")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
