"""Registry of task families by the config's ``family`` key."""

from __future__ import annotations

from biocompact.finetuning.family import TaskFamily
from biocompact.finetuning.sequence_classification import SequenceClassification
from biocompact.finetuning.token_classification import TokenClassification

FAMILIES: dict[str, TaskFamily] = {
    "ner": TokenClassification(),
    "re": SequenceClassification(),
}


def get_family(name: str) -> TaskFamily:
    """The task family registered as ``name``."""
    if name not in FAMILIES:
        raise ValueError(f"unknown task family {name!r}; known: {sorted(FAMILIES)}")
    return FAMILIES[name]
