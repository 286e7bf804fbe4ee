"""A task's settings (``taskfiles/settings.py``): the schema's fields and defaults, grid
points, and the keys a parsed entry may have."""

from __future__ import annotations

import pytest

from biocompact.entries import parse_entry
from biocompact.taskfiles.settings import FinetuningTask, Hyperparameters


def test_grid_points_yield_hyperparameters():
    settings = Hyperparameters(epochs=1, grid={"learning_rate": [1e-3, 1e-4], "batch_size": [8]})
    assert settings.grid_points() == [
        Hyperparameters(epochs=1, learning_rate=1e-3, batch_size=8),
        Hyperparameters(epochs=1, learning_rate=1e-4, batch_size=8),
    ]
    assert Hyperparameters(grid={"epochs": []}).grid_points() == [Hyperparameters()]
    record = Hyperparameters().as_record()
    assert "grid" not in record and record["bf16"] is True


def test_a_parsed_entry_checks_its_keys():
    with pytest.raises(ValueError, match="tasks.t: unknown setting 'epochs'"):
        parse_entry(
            FinetuningTask,
            {
                "name": "t",
                "family": "re",
                "format": "blue_tsv",
                "train": "a",
                "test": "b",
                "epochs": 1,
            },
            "config: finetuning.tasks.t",
        )
