"""How many transformer layers a model of the config has, from the config alone (presets
and overrides, student layers) or a checkpoint folder's ``config.json``, and how many
positions a checkpoint has; read when the DAG is built to check layer indices and sequence
lengths before any job runs (light: no torch)."""

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
    preset = PRESETS.get(architecture.get("preset", ""))
    return preset[0] if preset else None


# model types that number positions from pad_token_id + 1 (two fewer usable positions)
OFFSET_POSITIONS = ("roberta", "xlm-roberta", "camembert")


def _checkpoint_config(location: str, key: str, field: str) -> dict | None:
    """The ``config.json`` of the checkpoint at ``location`` (config key ``key``) where it
    holds ``field``; None for a hub name (known only once downloaded) or a config without
    it (the job that loads the model tells what is missing)."""
    config_file = Path(resolve_location(location, key), "config.json")
    if not config_file.is_file():
        return None
    try:
        config = json.loads(config_file.read_text())
    except ValueError as error:
        raise ValueError(f"config: {key}: {config_file} is not valid JSON ({error})") from None
    return config if isinstance(config, dict) and field in config else None


def checkpoint_depth(location: str, key: str) -> int | None:
    """Layers of the checkpoint at ``location`` (config key ``key``), from its folder's
    ``config.json``; None for a hub name."""
    config = _checkpoint_config(location, key, "num_hidden_layers")
    return None if config is None else int(config["num_hidden_layers"])


def checkpoint_architectures(location: str, key: str) -> list[str] | None:
    """The ``architectures`` of the checkpoint at ``location`` (config key ``key``), from its
    folder's ``config.json``; None for a hub name or a config without them."""
    config = _checkpoint_config(location, key, "architectures")
    return None if config is None else list(config["architectures"])


def checkpoint_positions(location: str, key: str) -> int | None:
    """The longest input (in tokens) of the checkpoint at ``location``: its
    ``max_position_embeddings``, less RoBERTa's offset; None for a hub name."""
    config = _checkpoint_config(location, key, "max_position_embeddings")
    if config is None:
        return None
    positions = int(config["max_position_embeddings"])
    if config.get("model_type") in OFFSET_POSITIONS:
        positions -= int(config.get("pad_token_id", 1)) + 1
    return positions


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


def model_positions(name: str, config: Mapping[str, Any]) -> int | None:
    """The longest input of model ``name`` where a checkpoint fixes it (an external model, a
    model continued from or distilled out of a checkpoint); None for a model built from
    scratch, whose job sizes its positions to the corpus (at least 512)."""
    if name in config["pretraining"]:
        init = config["pretraining"][name]["init"]
        return None if init == "scratch" else checkpoint_positions(init, f"pretraining.{name}.init")
    if name in config["distillation"]:
        entry = config["distillation"][name]
        init = entry["student_init"]
        if init == "teacher_layers":
            return model_positions(entry["teacher"], config)
        if init == "random":
            return None
        if init in (*config["pretraining"], *config["distillation"], *config["external_models"]):
            return model_positions(init, config)
        return checkpoint_positions(init, f"distillation.{name}.student_init")
    return checkpoint_positions(config["external_models"][name], f"external_models.{name}")
