"""Distillation methods as training objectives, selected by name from the config.

Every method runs the student with gradients and the frozen teacher in inference mode,
and computes only what its loss reads: the MLM heads only at the positions the loss uses,
hidden states of every layer and attention maps only for the layer-wise methods, and the
teacher's attention maps only for the layers the map g sends students to. Both models see
the documents of a packed sequence apart (``biocompact.models.documents``), and every
shape in a step is fixed by the batch's shape (a fixed number of masked positions a
sequence, masked means), so that the step compiles whole (``biocompact.training.step``).

Each loss term is returned (and logged) on its own; the weights ``alpha`` name the terms
of the method (Rohanian et al. 2023's alpha_1..3 and TinyBERT's lambdas, or MiniLMv2's
relation types; their defaults and the other options of each method:
``biocompact.distillation_methods``, whose declaration of a method names its class here).
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass
from typing import Any, TypedDict

import torch
from torch import nn
from transformers import PreTrainedModel
from transformers.utils.output_capturing import maybe_install_capturing_hooks

from biocompact.distillation.attention import (
    attention_log_probs,
    layer_input,
    self_attention_vectors,
)
from biocompact.distillation.layer_map import resolve_layer_map
from biocompact.distillation.losses import (
    attention_kl_loss,
    attention_mse_loss,
    cosine_alignment_loss,
    hidden_mse_loss,
    mlm_loss,
    relation_kl_loss,
    soft_cross_entropy_loss,
    soft_mlm_loss,
)
from biocompact.distillation.methods import DistillationOptions, LossWeight, method_options
from biocompact.distillation_methods import DISTILLATION_METHODS
from biocompact.models.documents import encoder_inputs, token_pairs
from biocompact.models.heads import mlm_head
from biocompact.models.last_layer import at_positions, enable_last_layer_at_positions
from biocompact.training.evaluation import masked_lm_logits
from biocompact.training.masking import IGNORE_INDEX
from biocompact.training.objective import Objective


class RecordedOptions(TypedDict, total=False):
    """The options a method read, defaults filled in, as its model's eval.json records them
    (``records.language_model.Distillation``): each method records those it reads."""

    alpha: dict[str, LossWeight]
    temperature: float
    layer_map: list[int]
    minilmv2: dict[str, int]


LAYER_TERMS = ("hidden", "attention")  # per-layer terms, weighted by alpha["layer"]


@dataclass
class Activations:
    """What one model produced on a batch, as far as a distillation loss reads it."""

    hidden_states: tuple[
        torch.Tensor, ...
    ]  # embeddings, then layers 1..L; only the last if not layer-wise
    logits: torch.Tensor  # MLM logits at the head positions, one row per position
    attention: dict[
        int, torch.Tensor
    ]  # layer -> log attention probabilities (batch, heads, query, key)

    def clone(self) -> Activations:
        """A copy made of ordinary tensors (inference-mode tensors cannot enter autograd)."""
        return Activations(
            tuple(hidden.clone() for hidden in self.hidden_states),
            self.logits.clone(),
            {layer: maps.clone() for layer, maps in self.attention.items()},
        )


@dataclass
class LossInputs:
    """What the loss terms read from a batch besides the two models' activations."""

    labels: torch.Tensor  # one per head row; IGNORE_INDEX where nothing is predicted
    rows: torch.Tensor  # one per head row: True where the row takes part in the loss
    attention_mask: torch.Tensor  # (batch, length): real tokens
    pairs: torch.Tensor  # (batch, 1, query, key): real tokens of one document (documents.py)


def compute_activations(
    model: PreTrainedModel,
    batch: dict[str, torch.Tensor],
    positions: torch.Tensor | None,
    all_layers: bool,
    attention_layers: list[int],
    pairs: torch.Tensor,
) -> Activations:
    """Encoder outputs, the MLM head at ``positions`` only (batch x count; None: at every
    position), attention maps of ``attention_layers`` over the token ``pairs``."""
    inputs = encoder_inputs(model, batch)
    output = model.base_model(**inputs, output_hidden_states=all_layers)
    hidden = tuple(output.hidden_states) if all_layers else (output.last_hidden_state,)
    attention = {
        layer: attention_log_probs(
            model, layer, hidden[layer - 1], pairs, inputs.get("position_ids")
        )
        for layer in attention_layers
    }
    final = hidden[-1] if positions is None else at_positions(hidden[-1], positions)
    return Activations(hidden, mlm_head(model)(final).flatten(0, 1), attention)


def teacher_inference() -> contextlib.AbstractContextManager:
    """How the frozen teacher runs: in inference mode (its outputs then cloned into ordinary
    tensors for the losses); inside a compiled step under ``no_grad``, which compiles to the
    same graph (nothing recorded for autograd either way) and lets the teacher's inputs be
    views of the step's inputs, which inference tensors cannot be in AOTAutograd."""
    return torch.no_grad() if torch.compiler.is_compiling() else torch.inference_mode()


class DistillationObjective(Objective):
    """Student, frozen teacher and the weighted sum of a method's loss terms.

    Every method reads ``alpha``; what else it reads (a temperature, a layer map, its own
    section) its class adds, as its ``DistillationMethod`` (``biocompact.distillation_methods``)
    declares.
    """

    frozen = ("teacher.",)
    head_on_every_token = (
        False  # eq. 8 reads the outputs at every token; eqs. 1-2 at the masked ones
    )

    def __init__(
        self,
        student: PreTrainedModel,
        teacher: PreTrainedModel,
        options: DistillationOptions | None = None,
    ):
        """``options``: the method's, parsed (``methods.method_options``; None: its defaults)."""
        super().__init__()
        self.options = options or method_options(self.method)
        if self.options.method != self.method:
            raise ValueError(f"options of method {self.options.method!r} for {self.method!r}")
        self.student = student
        self.teacher = teacher.eval().requires_grad_(False)
        self.alpha = dict(self.options.alpha)
        # hidden states of every layer come from Transformers' output-capturing hooks, which
        # its first call would install under a lock that a compiled step cannot trace
        for model in (student, teacher):
            base = model.base_model
            assert isinstance(base, PreTrainedModel)  # BertModel, ...: typed as a Module only
            maybe_install_capturing_hooks(base)

    @property
    def method(self) -> str:
        """The method this class implements: the one whose declaration names it, or the
        nearest of its base classes (a benchmark's subclass)."""
        for cls in type(self).__mro__:
            if cls.__name__ in METHOD_OF_OBJECTIVE:
                return METHOD_OF_OBJECTIVE[cls.__name__]
        raise TypeError(f"{type(self).__name__} is the objective of no distillation method")

    def options_record(self) -> RecordedOptions:
        """The options the method read, defaults filled in, for the run's record (eval.json)."""
        return {"alpha": self.alpha}

    def mapped_layers(self) -> list[tuple[int, int]]:
        """(student layer, teacher layer g(l)) of the layer-wise terms; none for the others."""
        return []

    def width_projection(self, learned: bool, purpose: str = "") -> nn.Module:
        """Identity for equal widths; else a learned linear map to the teacher's width, or an error."""
        student_width, teacher_width = (
            self.student.config.hidden_size,
            self.teacher.config.hidden_size,
        )
        if student_width == teacher_width:
            return nn.Identity()
        if not learned:
            raise ValueError(
                f"the {self.method} method {purpose} and needs equal widths: "
                f"student {student_width}, teacher {teacher_width}"
            )
        return nn.Linear(student_width, teacher_width)

    def train(self, mode: bool = True) -> DistillationObjective:
        super().train(mode)
        self.teacher.eval()
        return self

    # Activations here; a method may take its own (MiniLMv2 relation vectors, none of a
    # teacher that does not run), which its loss_terms reads
    def student_activations(
        self, batch: dict[str, torch.Tensor], positions: torch.Tensor | None, pairs: torch.Tensor
    ) -> Any:
        mapped = self.mapped_layers()
        layers = [student for student, _ in mapped]
        return compute_activations(self.student, batch, positions, bool(mapped), layers, pairs)

    def teacher_activations(
        self, batch: dict[str, torch.Tensor], positions: torch.Tensor | None, pairs: torch.Tensor
    ) -> Any:
        mapped = self.mapped_layers()
        layers = sorted({teacher for _, teacher in mapped})
        with teacher_inference():
            teacher = compute_activations(
                self.teacher, batch, positions, bool(mapped), layers, pairs
            )
        return teacher if torch.compiler.is_compiling() else teacher.clone()

    def loss_terms(self, student: Any, teacher: Any, inputs: LossInputs) -> dict[str, torch.Tensor]:
        """The method's loss terms: scalars, or one value per student layer for ``LAYER_TERMS``."""
        raise NotImplementedError

    def terms(self, batch: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """The method's loss terms on ``batch`` (``loss_terms`` of both models' activations)."""
        mask = batch["attention_mask"]
        if self.head_on_every_token:
            positions, labels, rows = None, batch["labels"], mask.bool()
        else:
            positions = batch["masked_positions"]
            labels = batch["labels"].gather(1, positions)
            rows = labels != IGNORE_INDEX
        pairs = token_pairs(batch)
        inputs = LossInputs(labels.flatten(), rows.flatten(), mask, pairs)
        student = self.student_activations(batch, positions, pairs)
        teacher = self.teacher_activations(batch, positions, pairs)
        return self.loss_terms(student, teacher, inputs)

    def forward(
        self, batch: dict[str, torch.Tensor]
    ) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        terms = self.terms(batch)
        loss = sum((self._weight(name, value) * value).sum() for name, value in terms.items())
        assert isinstance(loss, torch.Tensor)  # a method has at least one term
        return loss, {f"loss_{name}": value.detach().sum() for name, value in terms.items()}

    def _weight(self, term: str, value: torch.Tensor) -> torch.Tensor:
        weight = self.alpha["layer" if term in LAYER_TERMS else term]
        return torch.as_tensor(weight, dtype=value.dtype, device=value.device)

    def model_to_save(self) -> PreTrainedModel:
        return self.student


class SoftTargetObjective(DistillationObjective):
    """A method comparing the two models' output distributions at a temperature T."""

    def __init__(
        self,
        student: PreTrainedModel,
        teacher: PreTrainedModel,
        options: DistillationOptions | None = None,
    ):
        super().__init__(student, teacher, options)
        assert self.options.temperature is not None  # a soft-target method's spec sets one
        self.temperature: float = self.options.temperature

    def options_record(self) -> RecordedOptions:
        return {"temperature": self.temperature, **super().options_record()}


class LayerWiseObjective(SoftTargetObjective):
    """A method with layer-to-layer terms through the map g (Rohanian et al. 2023, eq. 5),
    compared head by head; ``alpha.layer`` may give one weight per student layer."""

    def __init__(
        self,
        student: PreTrainedModel,
        teacher: PreTrainedModel,
        options: DistillationOptions | None = None,
    ):
        super().__init__(student, teacher, options)
        n_student = student.config.num_hidden_layers
        self.layer_map = resolve_layer_map(
            n_student, teacher.config.num_hidden_layers, self.options.layer_map
        )
        weights = self.alpha["layer"]
        if isinstance(weights, list) and len(weights) != n_student:
            raise ValueError(
                f"alpha.layer lists {len(weights)} weights for a {n_student}-layer student"
            )
        heads = student.config.num_attention_heads, teacher.config.num_attention_heads
        if heads[0] != heads[1]:
            raise ValueError(
                f"the {self.method} method compares attention maps head by head and needs as many heads: "
                f"student {heads[0]}, teacher {heads[1]}"
            )

    def mapped_layers(self) -> list[tuple[int, int]]:
        return list(enumerate(self.layer_map, start=1))

    def options_record(self) -> RecordedOptions:
        return {**super().options_record(), "layer_map": self.layer_map}


class DistilBertObjective(SoftTargetObjective):
    """DistilBioBERT (Rohanian et al. 2023, eq. 4): alpha_1 L_mlm + alpha_2 L_softMLM + alpha_3 L_align."""

    learned_projection = False

    def __init__(
        self,
        student: PreTrainedModel,
        teacher: PreTrainedModel,
        options: DistillationOptions | None = None,
    ):
        super().__init__(student, teacher, options)
        self.projection = self.width_projection(
            self.learned_projection, "aligns the last hidden states with a cosine"
        )

    def loss_terms(self, student: Activations, teacher: Activations, inputs: LossInputs) -> dict:
        return {
            "mlm": mlm_loss(student.logits, inputs.labels),
            "soft": soft_mlm_loss(student.logits, teacher.logits, self.temperature, inputs.rows),
            "align": cosine_alignment_loss(
                self.projection(student.hidden_states[-1]),
                teacher.hidden_states[-1],
                inputs.attention_mask,
            ),
        }


class LargeToBaseObjective(DistilBertObjective):
    """Large-to-base (Lewis et al. 2020, section 7): 5.0 L_mlm + 2.0 KL at T = 2 + 1.0 cosine through a
    learned projection of the student's last hidden states to the teacher's width."""

    learned_projection = True


class TinyBertObjective(LayerWiseObjective):
    """TinyBioBERT (Rohanian et al. 2023, eq. 9): lambda_0 L_embed + sum_l lambda_l L_layer(l) + lambda_M+1 L_output.

    ``alpha`` holds the lambdas: ``embedding``, ``layer`` (one number, or one per student
    layer) and ``output``. W_e and W_h are learned when the widths differ (eq. 6-7).
    """

    head_on_every_token = True

    def __init__(
        self,
        student: PreTrainedModel,
        teacher: PreTrainedModel,
        options: DistillationOptions | None = None,
    ):
        super().__init__(student, teacher, options)
        self.embedding_projection = self.width_projection(learned=True)
        self.hidden_projection = self.width_projection(learned=True)

    def loss_terms(self, student: Activations, teacher: Activations, inputs: LossInputs) -> dict:
        mask = inputs.attention_mask
        mapped = self.mapped_layers()
        return {
            "embedding": hidden_mse_loss(
                self.embedding_projection(student.hidden_states[0]), teacher.hidden_states[0], mask
            ),
            "hidden": torch.stack(
                [
                    hidden_mse_loss(
                        self.hidden_projection(student.hidden_states[s]),
                        teacher.hidden_states[t],
                        mask,
                    )
                    for s, t in mapped
                ]
            ),
            "attention": torch.stack(
                [
                    attention_mse_loss(student.attention[s], teacher.attention[t], inputs.pairs)
                    for s, t in mapped
                ]
            ),
            "output": soft_cross_entropy_loss(
                student.logits, teacher.logits, self.temperature, inputs.rows
            ),
        }


class CompactObjective(LayerWiseObjective):
    """CompactBioBERT (Rohanian et al. 2023, eq. 11): alpha_1 L_mlm + alpha_2 L_softMLM + alpha_3 sum_l L_compact(l).

    L_compact(l) (eq. 10): cosine on the hidden states plus attention-map KL of student
    layer l against teacher layer g(l). ``alpha.layer`` may also give one weight per layer.
    """

    def __init__(
        self,
        student: PreTrainedModel,
        teacher: PreTrainedModel,
        options: DistillationOptions | None = None,
    ):
        super().__init__(student, teacher, options)
        self.width_projection(False, "aligns hidden states layer by layer with a cosine")

    def loss_terms(self, student: Activations, teacher: Activations, inputs: LossInputs) -> dict:
        mapped = self.mapped_layers()
        return {
            "mlm": mlm_loss(student.logits, inputs.labels),
            "soft": soft_mlm_loss(student.logits, teacher.logits, self.temperature, inputs.rows),
            "hidden": torch.stack(
                [
                    cosine_alignment_loss(
                        student.hidden_states[s], teacher.hidden_states[t], inputs.attention_mask
                    )
                    for s, t in mapped
                ]
            ),
            "attention": torch.stack(
                [
                    attention_kl_loss(student.attention[s], teacher.attention[t], inputs.pairs)
                    for s, t in mapped
                ]
            ),
        }


class PlainMlmObjective(DistillationObjective):
    """Plain MLM on the student alone: the baseline that the distillation methods must beat
    at equal steps (Rohanian et al. 2023 compare with such a student). The teacher only
    initialises the student (``student_init: teacher_layers``); it never runs."""

    def __init__(
        self,
        student: PreTrainedModel,
        teacher: PreTrainedModel,
        options: DistillationOptions | None = None,
    ):
        super().__init__(student, teacher, options)
        enable_last_layer_at_positions(student)

    def student_activations(
        self, batch: dict[str, torch.Tensor], positions: torch.Tensor | None, pairs: torch.Tensor
    ) -> Activations:
        """The MLM logits alone, the last layer run at the masked positions only."""
        return Activations((), masked_lm_logits(self.student, batch)[0], {})

    def teacher_activations(
        self, batch: dict[str, torch.Tensor], positions: torch.Tensor | None, pairs: torch.Tensor
    ) -> None:
        return None

    def loss_terms(self, student: Activations, teacher: None, inputs: LossInputs) -> dict:
        return {"mlm": mlm_loss(student.logits, inputs.labels)}


def default_teacher_layer(n_teacher_layers: int) -> int:
    """The teacher layer MiniLMv2 distils (Wang et al. 2021): the last one of a base-size
    teacher (12 layers, or fewer), an upper-middle one of a large-size teacher (BERT-large:
    layer 21 of 24). Other depths over 12 keep BERT-large's fraction, 21/24 (our
    extrapolation: the paper distils only 12- and 24-layer teachers)."""
    if n_teacher_layers <= 12:
        return n_teacher_layers
    return round(n_teacher_layers * 21 / 24)


def default_relation_heads(n_teacher_layers: int) -> int:
    """MiniLMv2's number of relation heads: 48 for base-size (12-layer) teachers, 64 for
    large-size (24-layer) ones (Wang et al. 2021; the same numbers in PaddleNLP's MiniLMv2
    example and in Bloomberg's reimplementation for BERT-base), here by the teacher's depth."""
    return 48 if n_teacher_layers <= 12 else 64


class MiniLMv2Objective(DistillationObjective):
    """MiniLMv2 (Wang et al. 2021): alpha_qq L_QQ + alpha_kk L_KK + alpha_vv L_VV.

    Each term is KL(R_teacher || R_student) between the scaled dot-product relations of the
    queries (Q-Q), keys (K-K) or values (V-V) of one teacher layer and of the student's last
    layer, over ``relation_heads`` relation heads (``relation_kl_loss``); the paper weighs the
    three equally and adds no MLM or output loss, and neither does this. Widths and head
    counts of the two models may differ: the relation heads give both the same shapes.

    What was checked against public sources (the authors never released the training
    code, microsoft/unilm issue 105): the relation formula and the split of the concatenated
    heads into relation heads (the paper's text, quoted in microsoft/unilm issue 349), the
    student's last layer and the teacher's last layer for BERT-base (Bloomberg's
    reimplementation, minilmv2.bb), 48/64 relation heads for base/large teachers (PaddleNLP's
    MiniLMv2 example). The large-teacher layer (21 of BERT-large's 24) could not be read in
    the paper here: ``teacher_layer`` sets it (docs/distillation.md).
    """

    # the student's last layer past its queries, keys and values, and its MLM head
    every_parameter_trained = False
    relations = {"qq": "query", "kk": "key", "vv": "value"}

    def __init__(
        self,
        student: PreTrainedModel,
        teacher: PreTrainedModel,
        options: DistillationOptions | None = None,
    ):
        super().__init__(student, teacher, options)
        n_teacher = teacher.config.num_hidden_layers
        section = self.options.section
        self.teacher_layer: int = section.get("teacher_layer", default_teacher_layer(n_teacher))
        if not 1 <= self.teacher_layer <= n_teacher:
            raise ValueError(
                f"minilmv2.teacher_layer {self.teacher_layer} must be a layer 1..{n_teacher} "
                f"of the {n_teacher}-layer teacher"
            )
        self.student_layer = student.config.num_hidden_layers
        self.relation_heads: int = section.get("relation_heads", default_relation_heads(n_teacher))
        # every head's query/key/value vectors concatenated: the hidden width in both layouts
        widths = (student.config.hidden_size, teacher.config.hidden_size)
        if any(width % self.relation_heads for width in widths):
            common = math.gcd(*widths)
            fitting = [n for n in range(1, common + 1) if common % n == 0]
            raise ValueError(
                f"minilmv2.relation_heads {self.relation_heads} must divide the query/key/value "
                f"width of the student ({widths[0]}) and of the teacher ({widths[1]}); "
                f"numbers that do: {fitting}"
            )

    def options_record(self) -> RecordedOptions:
        return {
            **super().options_record(),
            "minilmv2": {  # its own section, named after it
                "relation_heads": self.relation_heads,
                "teacher_layer": self.teacher_layer,
            },
        }

    def _relation_vectors(
        self, model: PreTrainedModel, layer: int, batch: dict[str, torch.Tensor]
    ) -> dict[str, torch.Tensor]:
        inputs = encoder_inputs(model, batch)
        hidden = layer_input(model, layer, inputs)  # the layers after it do not run
        return self_attention_vectors(model, layer, hidden, inputs.get("position_ids"))

    def student_activations(
        self, batch: dict[str, torch.Tensor], positions: torch.Tensor | None, pairs: torch.Tensor
    ) -> dict[str, torch.Tensor]:
        return self._relation_vectors(self.student, self.student_layer, batch)

    def teacher_activations(
        self, batch: dict[str, torch.Tensor], positions: torch.Tensor | None, pairs: torch.Tensor
    ) -> dict[str, torch.Tensor]:
        with teacher_inference():
            vectors = self._relation_vectors(self.teacher, self.teacher_layer, batch)
        if torch.compiler.is_compiling():
            return vectors
        return {name: value.clone() for name, value in vectors.items()}

    def loss_terms(
        self, student: dict, teacher: dict, inputs: LossInputs
    ) -> dict[str, torch.Tensor]:
        return {
            term: relation_kl_loss(student[name], teacher[name], self.relation_heads, inputs.pairs)
            for term, name in self.relations.items()
        }


def _objective_class(name: str) -> type[DistillationObjective]:
    """The objective class ``name`` of this module, as a method's declaration names it."""
    objective = globals().get(name)
    if not (isinstance(objective, type) and issubclass(objective, DistillationObjective)):
        raise TypeError(f"{name} is not a distillation objective of {__name__}")
    return objective


# each method's objective, and each objective's method
METHODS = {
    name: _objective_class(method.objective) for name, method in DISTILLATION_METHODS.items()
}
METHOD_OF_OBJECTIVE = {method.objective: name for name, method in DISTILLATION_METHODS.items()}
