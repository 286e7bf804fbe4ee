"""Fixtures of the report tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from biocompact.workflow.config_schema import read_config_file, validate_config


@pytest.fixture(scope="session")
def validated_config(repo_root: Path) -> Callable[[dict], dict]:
    """A function that returns a test's config as the workflow reads it: checked by the
    schema, with its defaults filled in."""
    schema = read_config_file(repo_root / "workflow/schemas/config.schema.yaml")

    def validated(config: dict) -> dict:
        validate_config(config, schema, [("test config", config)])
        return config

    return validated
