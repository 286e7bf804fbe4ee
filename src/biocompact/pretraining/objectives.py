"""The pretraining objectives by config name (``objective: mlm|nsp|electra|albert``).

An objective is one builder: ``(model config or None, checkpoint location or None,
options, tokenizer, batcher) -> (Objective, batcher)``; a new objective is a new module
plus an entry here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from biocompact.pretraining.albert import build_albert
from biocompact.pretraining.electra import build_electra
from biocompact.pretraining.mlm import build_mlm
from biocompact.pretraining.nsp import build_nsp
from biocompact.pretraining.objective_families import OBJECTIVE_FAMILIES, objective_for


@dataclass(frozen=True)
class ObjectiveEntry:
    build: Callable
    families: tuple[str, ...]  # model families the objective can train


BUILDERS: dict[str, Callable] = {
    "mlm": build_mlm,
    "nsp": build_nsp,
    "electra": build_electra,
    "albert": build_albert,
}
OBJECTIVES: dict[str, ObjectiveEntry] = {
    name: ObjectiveEntry(build, OBJECTIVE_FAMILIES[name]) for name, build in BUILDERS.items()
}


def objective_entry(name: str | None, family: str) -> tuple[str, ObjectiveEntry]:
    """The objective ``name`` (default: the family's own), checked against the model family."""
    name = objective_for(name, family)
    return name, OBJECTIVES[name]
