"""The config's ``release`` and ``model_cards`` sections, and the release rules' settings,
parsed from their params. Light: the sections' classes describe the config (its schema is
generated from them) when the DAG is built."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from pydantic import Field

from biocompact.entries import ENTRY
from biocompact.schema_fields import UNIQUE_ITEMS


@dataclass(frozen=True)
class ReleaseSettings:
    """`snakemake release`: chosen models gathered into Hub-ready folders under
    results/release/{name}/ (weights, config, tokenizer, model card, results.json) and the
    `hf upload` command of each in results/release/upload.sh"""

    __pydantic_config__ = ENTRY
    SECTION = "release"

    namespace: str = "your-hub-name"
    """the Hub user or organisation of the repositories, NAMESPACE/{name}"""
    models: Annotated[tuple[str, ...], UNIQUE_ITEMS] = ()
    """models of pretraining or distillation, released as {model}"""
    finetuned: Annotated[
        tuple[Annotated[str, Field(pattern="^[^/]+/[^/]+$")], ...], UNIQUE_ITEMS
    ] = ()
    """kept fine-tuned models (finetuning.save_models best or all) as MODEL/TASK, released as
    MODEL-TASK"""


@dataclass(frozen=True)
class CardSettings:
    """what the README.md model card of every model folder states that the run cannot
    measure (docs/outputs.md#model-cards)"""

    __pydantic_config__ = ENTRY
    SECTION = "model_cards"

    license: str = "other"
    """the Hub license identifier of the models (e.g. apache-2.0, mit, cc-by-4.0); other: none
    stated"""
    language: Annotated[tuple[str, ...], Field(min_length=1)] = ("en",)
    tags: tuple[str, ...] = ()
    """tags added to every card"""


@dataclass(frozen=True)
class ModelRelease:
    """What one release folder carries beside the model: its results file and the Hub
    repository it is prepared for."""

    results: str  # a fine-tuned model's metrics.json, a language model's eval.json
    repo: str  # NAMESPACE/RELEASE


@dataclass(frozen=True)
class ReleaseUpload:
    """Where the release folders are uploaded: one Hub repository each, under ``namespace``."""

    namespace: str
