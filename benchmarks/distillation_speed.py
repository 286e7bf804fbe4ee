"""Distillation steps per second of biocompact's objectives against a straightforward implementation.

Both run the same method with the same loss functions, models, batches and AdamW; they
differ only in how teacher and student outputs are produced:

* biocompact (``biocompact.distillation.objectives``): the teacher in inference mode (bf16
  on a GPU), the MLM heads only at the positions the loss reads (masked tokens; every
  real token for TinyBERT's eq. 8), hidden states of every layer and attention maps only
  for the layer-wise methods, the teacher's maps only for the layers the map g uses,
  SDPA attention; for ``minilmv2`` the encoders alone (no MLM head), queries, keys and
  values of the one layer each side distils;
* straightforward: ``model(..., output_hidden_states=True, output_attentions=...)`` for
  both models, full-vocabulary logits at every position, teacher under ``no_grad`` (fp32
  weights; bf16 autocast on a GPU, as Hugging Face's distillation research project's
  ``distiller.py`` with ``--fp16``), eager attention where maps are needed.

First the loss terms of both on the same batch are compared (fp32, no dropout: they must
be identical up to rounding); then training steps of the two are timed alternately (so
both see the same machine load) after ``--warmup`` untimed steps. Prints, per method,
seconds per step, steps/s, real tokens/s and the speed-up.

    python benchmarks/distillation_speed.py                        # CPU: 4L-256 teacher, vocabulary 32768
    python benchmarks/distillation_speed.py --methods distilbert --vocab-size 4000   # the demo's shapes
"""

from __future__ import annotations

import argparse
import copy
import statistics
import time
from collections.abc import Callable

import torch
from transformers import AutoModelForMaskedLM, PreTrainedModel

from biocompact.distillation.attention import self_attention_vectors
from biocompact.distillation.methods import method_options
from biocompact.distillation.objectives import METHODS, Activations, DistillationObjective
from biocompact.distillation.student import student_from_teacher_layers
from biocompact.distillation_methods import DISTILLATION_METHODS
from biocompact.models.last_layer import at_positions
from biocompact.models.presets import build_config
from biocompact.training.batches import MaskedBatcher
from biocompact.training.loop import adamw_optimizer, pick_device
from biocompact.training.precision import inference_dtype
from biocompact.training.settings import MaskingSettings, TrainingSettings
from biocompact.training.step import TrainingStep, compiles

PAD, MASK = 0, 4
# random / pretrained students of their own width (projections, or MiniLMv2's relation heads)
NARROW_STUDENT = ("tinybert", "lewis", "minilmv2")


def full_activations(
    model: PreTrainedModel, batch: dict, positions: torch.Tensor | None, attention_layers: list[int]
):
    """Everything the model returns: hidden states, eager attention maps, logits at every
    position (the loss reads those at ``positions``; None: every position)."""
    output = model(
        input_ids=batch["input_ids"],
        attention_mask=batch["attention_mask"],
        output_hidden_states=True,
        output_attentions=bool(attention_layers),
    )
    attention = {layer: output.attentions[layer - 1].log() for layer in attention_layers}
    logits = output.logits if positions is None else at_positions(output.logits, positions)
    return Activations(tuple(output.hidden_states), logits.flatten(0, 1), attention)


class Straightforward:
    """Mixin replacing an objective's forward passes by the straightforward ones."""

    def student_activations(self, batch, positions, pairs):
        layers = [student for student, _ in self.mapped_layers()]
        return full_activations(self.student, batch, positions, layers)

    def teacher_activations(self, batch, positions, pairs):
        layers = sorted({teacher for _, teacher in self.mapped_layers()})
        with torch.no_grad():
            return full_activations(self.teacher, batch, positions, layers)


class StraightforwardRelations:
    """Mixin for ``minilmv2``: the whole models (logits at every position) with every hidden
    state, the teacher under ``no_grad``."""

    def _relation_vectors(self, model, layer, batch):
        hidden = model(
            input_ids=batch["input_ids"],
            attention_mask=batch["attention_mask"],
            output_hidden_states=True,
        ).hidden_states
        return self_attention_vectors(model, layer, hidden[layer - 1])

    def teacher_activations(self, batch, positions, pairs):
        with torch.no_grad():
            return self._relation_vectors(self.teacher, self.teacher_layer, batch)


def models(args, method: str) -> tuple[PreTrainedModel, PreTrainedModel]:
    """Teacher (``--teacher-preset``, no dropout) and the method's usual kind of student."""
    architecture = {
        "preset": args.teacher_preset,
        "hidden_dropout_prob": 0.0,
        "attention_probs_dropout_prob": 0.0,
    }
    config = build_config(architecture, vocab_size=args.vocab_size)
    config.pad_token_id = PAD
    torch.manual_seed(0)
    teacher = AutoModelForMaskedLM.from_config(config)
    n_layers = config.num_hidden_layers // 2
    if method in NARROW_STUDENT:
        student_config = copy.deepcopy(config)
        student_config.num_hidden_layers, student_config.hidden_size = (
            n_layers,
            config.hidden_size // 2,
        )
        student_config.intermediate_size = config.intermediate_size // 2
        student = AutoModelForMaskedLM.from_config(student_config)
    else:
        student = student_from_teacher_layers(teacher, None)
    return teacher, student


def batches(args, count: int) -> list[dict[str, torch.Tensor]]:
    """Full-length sequences of random tokens, each token a word, masked as in pretraining."""
    batcher = MaskedBatcher(PAD, MASK, args.vocab_size, MaskingSettings())
    generator = torch.Generator().manual_seed(0)
    result = []
    for _ in range(count):
        ids = torch.randint(
            5, args.vocab_size, (args.batch_size, args.seq_length), generator=generator
        )
        rows = {
            "input_ids": ids.tolist(),
            "word_ids": [list(range(args.seq_length))] * args.batch_size,
        }
        result.append(batcher(rows, generator))
    return result


def build(
    args, method: str, teacher, student, straightforward: bool, device
) -> DistillationObjective:
    teacher, student = copy.deepcopy(teacher), copy.deepcopy(student)
    cls: type[DistillationObjective] = METHODS[method]
    relations = method == "minilmv2"
    if straightforward:
        mixin = StraightforwardRelations if relations else Straightforward
        cls = type(f"Straightforward{cls.__name__}", (mixin, cls), {})
        if DISTILLATION_METHODS[method].layer_wise:
            teacher.set_attn_implementation("eager")
            student.set_attn_implementation("eager")
    torch.manual_seed(0)  # same projection initialisation in both
    options = {"minilmv2": {"relation_heads": args.relation_heads}} if relations else {}
    return cls(student, teacher, method_options(method, options)).to(device)


def autocast(device: torch.device) -> torch.autocast:
    """bf16 autocast on a GPU for both: the plain route at its strongest (distiller.py's
    --fp16); fp32 on the CPU."""
    return torch.autocast(device.type, dtype=torch.bfloat16, enabled=device.type == "cuda")


def straightforward_step(objective, optimizer) -> Callable[[dict], None]:
    """loss.backward(), gradient clipping and ``torch.optim.AdamW.step()``, eager."""
    parameters = [p for p in objective.parameters() if p.requires_grad]

    def run(batch: dict) -> None:
        with autocast(batch["input_ids"].device):
            loss, _ = objective(batch)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(parameters, 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)

    return run


def timed_step(run: Callable[[dict], object], batch: dict, device: torch.device) -> float:
    if device.type == "cuda":
        torch.cuda.synchronize()
    started = time.perf_counter()
    run(batch)
    if device.type == "cuda":
        torch.cuda.synchronize()
    return time.perf_counter() - started


def compare(args, method: str, device: torch.device) -> dict:
    teacher, student = models(args, method)
    data = [
        {k: v.to(device) for k, v in b.items()} for b in batches(args, args.warmup + args.steps)
    ]
    ours, plain = (
        build(args, method, teacher, student, False, device),
        build(args, method, teacher, student, True, device),
    )
    _, our_terms = ours(data[0])
    _, plain_terms = plain(data[0])
    differences = {k: abs(float(our_terms[k]) - float(plain_terms[k])) for k in plain_terms}
    relative = max(differences[k] / max(abs(float(plain_terms[k])), 1e-12) for k in plain_terms)
    ours.teacher.to(inference_dtype(device, bf16=device.type == "cuda"))  # as run_distillation
    settings = TrainingSettings(steps=1, batch_size=args.batch_size, learning_rate=1e-4)
    # biocompact's training step, compiled where the setting says (auto: on a GPU)
    our_step = TrainingStep(
        ours,
        adamw_optimizer(ours, settings),
        max_grad_norm=settings.max_grad_norm,
        autocast=autocast(device),
        compiled=compiles(args.compile, device),
    )
    runs = {
        "biocompact": lambda batch: our_step([batch]),
        "straightforward": straightforward_step(
            plain, torch.optim.AdamW([p for p in plain.parameters() if p.requires_grad], lr=1e-4)
        ),
    }
    times: dict[str, list[float]] = {name: [] for name in runs}
    for index, batch in enumerate(data):
        for name, run in runs.items():
            elapsed = timed_step(run, batch, device)
            if index >= args.warmup:
                times[name].append(elapsed)
    tokens = float(data[0]["attention_mask"].sum())
    seconds = {name: statistics.median(values) for name, values in times.items()}
    return {
        "method": method,
        "terms": sorted(k.removeprefix("loss_") for k in our_terms),
        "max_difference": max(differences.values()),
        "max_relative_difference": relative,
        "seconds": seconds,
        "tokens": tokens,
        "speedup": seconds["straightforward"] / seconds["biocompact"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--methods", nargs="+", default=sorted(METHODS), choices=sorted(METHODS))
    parser.add_argument("--teacher-preset", default="demo-4L-256")
    parser.add_argument(
        "--vocab-size", type=int, default=32768, help="Bioformer's 32768 by default"
    )
    parser.add_argument(
        "--relation-heads",
        type=int,
        default=16,
        help="minilmv2: relation heads (16: the teacher's d_r = 16, as 48 of BERT-base's 768 units)",
    )
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--seq-length", type=int, default=128)
    parser.add_argument("--steps", type=int, default=5, help="timed steps per implementation")
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--compile",
        default="auto",
        choices=("auto", "true", "false"),
        help="biocompact's compile setting (auto: compiled on a GPU)",
    )
    args = parser.parse_args()
    args.compile = {"true": True, "false": False}.get(args.compile, args.compile)
    torch.set_num_threads(args.threads)
    device = pick_device()
    print(
        f"device {device}, {torch.get_num_threads()} threads; teacher {args.teacher_preset}, vocabulary "
        f"{args.vocab_size}, batch {args.batch_size} x {args.seq_length} tokens, median of {args.steps} steps"
    )
    print(
        f"{'method':<11} {'loss terms':<33} {'max |diff|':>10} {'max rel.':>8} {'biocompact s/step':>17} "
        f"{'steps/s':>8} {'tokens/s':>9} {'plain s/step':>12} {'steps/s':>8} {'speed-up':>8}"
    )
    for method in args.methods:
        result = compare(args, method, device)
        ours, plain = result["seconds"]["biocompact"], result["seconds"]["straightforward"]
        print(
            f"{method:<11} {','.join(result['terms']):<33} {result['max_difference']:>10.1e} "
            f"{result['max_relative_difference']:>8.1e} {ours:>17.3f} {1 / ours:>8.2f} {result['tokens'] / ours:>9.0f} "
            f"{plain:>12.3f} {1 / plain:>8.2f} {result['speedup']:>7.2f}x"
        )


if __name__ == "__main__":
    main()
