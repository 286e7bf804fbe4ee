"""Fixtures of the report tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from biocompact.workflow.config_schema import validate_config


@pytest.fixture(scope="session")
def validated_config(repo_root: Path) -> Callable[[dict], dict]:
    """A function that returns a test's config as the workflow reads it: checked by the
    schema, with its defaults filled in."""
    schema = yaml.safe_load(
        (repo_root / "workflow/schemas/config.schema.yaml").read_text(encoding="utf-8")
    )

    def validated(config: dict) -> dict:
        validate_config(config, schema, [("test config", config)])
        return config

    return validated
