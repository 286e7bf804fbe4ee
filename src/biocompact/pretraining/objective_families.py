"""Which model families each pretraining objective trains, and each family's own objective
(light: checked when the DAG is built as well as by the job)."""

from __future__ import annotations

# objective -> the model families it can train
OBJECTIVE_FAMILIES: dict[str, tuple[str, ...]] = {
    "mlm": ("bert", "roberta", "electra", "albert", "modernbert"),
    "nsp": ("bert",),
    "electra": ("electra",),
    "albert": ("albert",),
}

# each family's own objective, used when a model names none
DEFAULT_OBJECTIVE = {
    "bert": "mlm",
    "roberta": "mlm",
    "electra": "electra",
    "albert": "albert",
    "modernbert": "mlm",  # Warner et al. 2024: MLM alone, no next-sentence prediction
}


def objective_for(name: str | None, family: str) -> str:
    """The objective ``name`` (default: the family's own), checked against the model family."""
    if family not in DEFAULT_OBJECTIVE:
        raise ValueError(f"unknown model family {family!r}; known: {sorted(DEFAULT_OBJECTIVE)}")
    name = name or DEFAULT_OBJECTIVE[family]
    if name not in OBJECTIVE_FAMILIES:
        raise ValueError(
            f"unknown pretraining objective {name!r}; known: {sorted(OBJECTIVE_FAMILIES)}"
        )
    if family not in OBJECTIVE_FAMILIES[name]:
        raise ValueError(
            f"objective {name!r} trains models of family {', '.join(OBJECTIVE_FAMILIES[name])}, "
            f"not {family!r}"
        )
    return name
