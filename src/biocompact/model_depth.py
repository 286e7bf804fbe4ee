"""How many transformer layers a model of the config has, from the config alone (presets
and overrides, student layers) or a checkpoint folder's ``config.json``; read when the DAG
is built to check layer indices before any job runs (light: no torch)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from biocompact.distillation.layer_map import every_other_layer
from biocompact.locations import resolve_location
from biocompact.models.shapes import PRESETS


def architecture_depth(architecture: Mapping[str, Any] | None) -> int | None:
    """Layers of ``{"preset": name, **overrides}``: its ``num_hidden_layers``, else its
    preset's; None when it gives neither (the family's default, known to the job)."""
    architecture = architecture or {}
    if "num_hidden_layers" in architecture:
        return int(architecture["num_hidden_layers"])
    preset = PRESETS.get(architecture.get("preset"))
    return preset[0] if preset else None


def checkpoint_depth(location: str, key: str) -> int | None:
    """Layers of the checkpoint at ``location`` (config key ``key``): its folder's
    ``config.json``; None for a hub name (known only once downloaded)."""
    config_file = Path(resolve_location(location, key), "config.json")
    if not config_file.is_file():
        return None
    try:
        layers = json.loads(config_file.read_text())["num_hidden_layers"]
    except (ValueError, KeyError) as error:
        raise ValueError(
            f"config: {key}: {config_file} is not a model config with num_hidden_layers ({error})"
        ) from None
    return int(layers)


def model_depth(name: str, config: Mapping[str, Any]) -> int | None:
    """Layers of model ``name`` of the (validated) config, or None where only training it
    would tell (a hub checkpoint, a family's default shape)."""
    if name in config["pretraining"]:
        entry = config["pretraining"][name]
        if entry["init"] == "scratch":
            return architecture_depth(entry["architecture"])
        return checkpoint_depth(entry["init"], f"pretraining.{name}.init")
    if name in config["distillation"]:
        entry = config["distillation"][name]
        init = entry["student_init"]
        if init == "teacher_layers":
            if entry["student_layers"] is not None:
                return len(entry["student_layers"])
            teacher_depth = model_depth(entry["teacher"], config)
            return len(every_other_layer(teacher_depth)) if teacher_depth else None
        if init == "random":
            return architecture_depth(entry.get("student_architecture"))
        if init in (*config["pretraining"], *config["distillation"], *config["external_models"]):
            return model_depth(init, config)
        return checkpoint_depth(init, f"distillation.{name}.student_init")
    return checkpoint_depth(config["external_models"][name], f"external_models.{name}")
