"""The settings of the config that every language-model job reads: the optimisation settings
of a pretraining or distillation entry (``TrainingSettings``, the fields both entries start
with), a model's architecture, the config's ``masking`` and ``probes``.

Light (no torch): the config schema is generated from these classes, and the workflow
imports them when it builds the DAG.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Annotated, Literal

from pydantic import ConfigDict, Field, with_config
from typing_extensions import TypedDict

from biocompact.entries import ENTRY


@dataclass(frozen=True, kw_only=True)
class TrainingSettings:
    """optimisation settings shared by pretraining and distillation"""

    __pydantic_config__ = ENTRY

    steps: Annotated[int, Field(ge=1)]
    """optimizer steps"""
    batch_size: Annotated[int, Field(ge=1)]
    """sequences per micro-batch"""
    gradient_accumulation: Annotated[int, Field(ge=1)] = 1
    learning_rate: Annotated[float, Field(gt=0)]
    warmup_steps: Annotated[int, Field(ge=0)] = 0
    weight_decay: Annotated[float, Field(ge=0)] = 0.01
    max_grad_norm: Annotated[float, Field(gt=0)] = 1.0
    adam_beta1: float = 0.9
    adam_beta2: float = 0.999
    adam_epsilon: float = 1e-6
    seed: int = 0
    log_every: Annotated[int, Field(ge=1)] = 10
    checkpoint_every: Annotated[int, Field(ge=1)] = 100
    peak_tflops: Annotated[float, Field(gt=0)] | None = None
    """the GPU's peak TFLOP/s for MFU in the training log; null: from the GPU's name"""
    bf16: bool = True
    """bf16 autocast (distillation: and a bf16 teacher) where the device computes bf16
    natively: a GPU with bf16, a CPU with AVX512-BF16 or AMX; fp32 elsewhere or when false"""
    data_workers: Annotated[int, Field(ge=0)] = 0
    """DataLoader processes that mask and collate batches ahead into pinned memory (a GPU job:
    2-4); 0: the training thread makes each batch (same batches either way)"""
    compile: Literal["auto", True, False] = "auto"
    """torch.compile the whole training step (forward, loss, backward, clipping, AdamW) as one
    graph; auto: on a GPU, not on the CPU, where compiling took longer than it saved
    (docs/speed.md); true on a CPU compiles for minutes"""

    @property
    def training(self) -> TrainingSettings:
        """These settings alone, without an entry's other fields (what the training loop
        reads and records)."""
        shared = fields(TrainingSettings)
        return TrainingSettings(**{item.name: getattr(self, item.name) for item in shared})


@with_config(ConfigDict(extra="allow", use_attribute_docstrings=True))
class Architecture(TypedDict, total=False):
    """a named preset and/or fields of the family's config class (BertConfig, RobertaConfig,
    ElectraConfig, AlbertConfig, ModernBertConfig, e.g. its global_attn_every_n_layers and
    local_attention)"""

    preset: str


@dataclass(frozen=True)
class MaskingSettings:
    """masked-language-modelling corruption (BERT's recipe by default)"""

    __pydantic_config__ = ENTRY
    SECTION = "masking"

    probability: Annotated[float, Field(gt=0, le=1)] = 0.15
    replace_with_mask: Annotated[float, Field(ge=0, le=1)] = 0.8
    replace_with_random: Annotated[float, Field(ge=0, le=1)] = 0.1
    whole_word: bool = True
    # static masking as in BERT's create_pretraining_data: epoch e sees copy e mod D
    duplication_factor: Annotated[int, Field(ge=1)] | None = None
    """null: dynamic masking; D: static masking with D masked copies of every sequence
    (BERT: 10)"""

    def predictions_per_sequence(self, length: int) -> int:
        """The most tokens a sequence of ``length`` tokens predicts (``mask_tokens``)."""
        return max(1, math.ceil(self.probability * length))


@dataclass(frozen=True)
class Probe:
    """A fill-mask probe of the config's ``probes``: a sentence with ``[MASK]`` and the word
    a trained model should put there."""

    __pydantic_config__ = ENTRY
    SECTION = "probes"

    text: Annotated[str, Field(pattern=r"\[MASK\]")]
    answer: str


DEFAULT_PROBES = (
    Probe("The patient was diagnosed with breast [MASK].", "cancer"),
    Probe("Insulin is used to treat [MASK].", "diabetes"),
)
