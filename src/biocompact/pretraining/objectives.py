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


@dataclass(frozen=True)
class ObjectiveEntry:
    build: Callable
    families: tuple[str, ...]  # model families the objective can train


OBJECTIVES: dict[str, ObjectiveEntry] = {
    "mlm": ObjectiveEntry(build_mlm, ("bert", "roberta", "electra", "albert", "modernbert")),
    "nsp": ObjectiveEntry(build_nsp, ("bert",)),
    "electra": ObjectiveEntry(build_electra, ("electra",)),
    "albert": ObjectiveEntry(build_albert, ("albert",)),
}

# each family's own objective, used when a model names none
DEFAULT_OBJECTIVE = {
    "bert": "mlm",
    "roberta": "mlm",
    "electra": "electra",
    "albert": "albert",
    "modernbert": "mlm",  # Warner et al. 2024: MLM alone, no next-sentence prediction
}


def objective_entry(name: str | None, family: str) -> tuple[str, ObjectiveEntry]:
    """The objective ``name`` (default: the family's own), checked against the model family."""
    if family not in DEFAULT_OBJECTIVE:
        raise ValueError(f"unknown model family {family!r}; known: {sorted(DEFAULT_OBJECTIVE)}")
    name = name or DEFAULT_OBJECTIVE[family]
    if name not in OBJECTIVES:
        raise ValueError(f"unknown pretraining objective {name!r}; known: {sorted(OBJECTIVES)}")
    entry = OBJECTIVES[name]
    if family not in entry.families:
        raise ValueError(
            f"objective {name!r} trains models of family {', '.join(entry.families)}, not {family!r}"
        )
    return name, entry
