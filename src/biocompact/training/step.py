"""One optimizer step as one function of fixed shapes: forward, loss, backward, gradient
clipping and AdamW, compiled whole with ``torch.compile`` where ``compile`` says.

Every batch of a run has the same shape (``biocompact.training.batches``) and every loss
reads fixed-shape tensors (masked means, a fixed number of masked positions a sequence),
so the step traces into one graph without a break and without a host synchronisation: no
value is read on the host inside it, and the loss terms come back as tensors that the loop
reads only when it logs (tests/training/test_training_step.py checks both: the step is
compiled with ``fullgraph``, where a graph break or a host read is an error). The gradients
are taken with ``torch.autograd.grad`` and AdamW runs as ``torch.optim``'s functional ``adamw`` on the state of a
``torch.optim.AdamW``, so that checkpoints hold that optimizer's state as before: eager
with the fused kernel (one kernel over all parameters), compiled with the single-tensor
form that Inductor fuses into the step (the fused kernel is opaque to the compiler).

Under torchrun (several processes) the gradients of every micro-batch come from
``backward`` through ``DistributedDataParallel``, which all-reduces them while the backward
runs (compiled: the wrapped model, in the graphs DDP splits it into); clipping and AdamW
are the same function.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import torch
from torch import nn
from torch.optim.adamw import adamw

Batch = dict[str, torch.Tensor]
Terms = dict[str, torch.Tensor]


def compiles(setting: str | bool, device: torch.device) -> bool:
    """Whether the step is compiled: ``compile: true``/``false`` as set; ``auto`` on a GPU
    only (on the CPU compiling took longer than it saved at the demo's and bioformer-8L's
    sizes; measured: docs/speed.md, section "Figures behind code choices")."""
    if setting == "auto":
        return device.type == "cuda"
    return bool(setting)


def init_adamw_state(optimizer: torch.optim.AdamW) -> None:
    """Create every parameter's AdamW state now, as the optimizer's first step would (so that
    the compiled step finds it; a checkpoint's state replaces it)."""
    for group in optimizer.param_groups:
        for parameter in group["params"]:
            if not optimizer.state[parameter]:
                optimizer.state[parameter] = {
                    # on the parameter's device, as fused and capturable AdamW keep it
                    "step": torch.zeros((), dtype=torch.float32, device=parameter.device),
                    "exp_avg": torch.zeros_like(parameter, memory_format=torch.preserve_format),
                    "exp_avg_sq": torch.zeros_like(parameter, memory_format=torch.preserve_format),
                }


class TrainingStep:
    """Calls of ``step(batches)`` train on the micro-batches of one optimizer step.

    ``loss`` maps a batch to (loss, named terms); ``optimizer`` holds the parameter groups,
    their learning rates (set by the scheduler between steps) and the AdamW state;
    ``backend`` is ``torch.compile``'s (Inductor; the tests also run AOTAutograd's graphs
    eagerly). Returns the loss and its terms, averaged over the micro-batches, as tensors on
    the device.
    """

    def __init__(
        self,
        loss: Callable[[Batch], tuple[torch.Tensor, Terms]],
        optimizer: torch.optim.AdamW,
        *,
        max_grad_norm: float,
        autocast: torch.autocast,
        compiled: bool,
        data_parallel: nn.parallel.DistributedDataParallel | None = None,
        backend: str = "inductor",
    ):
        self.loss = loss
        self.optimizer = optimizer
        self.max_grad_norm = max_grad_norm
        self.autocast = autocast
        self.compiled = compiled
        self.data_parallel = data_parallel
        self.parameters = [p for group in optimizer.param_groups for p in group["params"]]
        device = self.parameters[0].device
        self.learning_rates = [
            torch.tensor(group["lr"], dtype=torch.float32, device=device)
            for group in optimizer.param_groups
        ]
        init_adamw_state(optimizer)
        if data_parallel is None:
            self._run = (
                torch.compile(self._local_step, fullgraph=True, backend=backend)
                if compiled
                else self._local_step
            )
        else:
            self._forward = (
                torch.compile(data_parallel, backend=backend) if compiled else data_parallel
            )
            self._run = self._data_parallel_step

    def __call__(self, batches: list[Batch]) -> Terms:
        # what optimizer.step() sets: the learning-rate scheduler checks that a step came first
        self.optimizer._opt_called = True  # type: ignore[attr-defined]  # private, undeclared
        if not self.compiled:
            return self._run(batches)
        for rate, group in zip(self.learning_rates, self.optimizer.param_groups):
            rate.fill_(group["lr"])  # a copy on the device, no synchronisation
        with torch._dynamo.config.patch(trace_autograd_ops=True):  # autograd.grad in the graph
            return self._run(batches)

    def _local_step(self, batches: list[Batch]) -> Terms:
        gradients: list[torch.Tensor | None] = [None] * len(self.parameters)
        sums: Terms = {}
        for batch in batches:
            with self.autocast:
                loss, terms = self.loss(batch)
            shares = torch.autograd.grad(loss / len(batches), self.parameters, allow_unused=True)
            gradients = [
                share if total is None else total if share is None else total + share
                for total, share in zip(gradients, shares)
            ]
            _add_terms(sums, loss, terms, len(batches))
        self._update(gradients)
        return sums

    def _data_parallel_step(self, batches: list[Batch]) -> Terms:
        assert self.data_parallel is not None  # this step runs only with it
        sums: Terms = {}
        for index, batch in enumerate(batches):
            last = index == len(batches) - 1
            # DDP all-reduces gradients only on the last micro-step of an optimizer step
            with contextlib.nullcontext() if last else self.data_parallel.no_sync():
                with self.autocast:
                    loss, terms = self._forward(batch)
                (loss / len(batches)).backward()
            _add_terms(sums, loss, terms, len(batches))
        self._update([parameter.grad for parameter in self.parameters])
        for parameter in self.parameters:
            parameter.grad = None
        return sums

    def _update(self, gradients: list[torch.Tensor | None]) -> None:
        """Clip the gradients to ``max_grad_norm`` (as ``clip_grad_norm_``) and take an AdamW
        step of every parameter that has one (as ``torch.optim.AdamW.step``)."""
        norm = torch.nn.utils.get_total_norm([g for g in gradients if g is not None])
        compiling = torch.compiler.is_compiling()
        grad_scale = None
        if compiling:  # clip_grad_norm_'s factor, fused by Inductor into the update
            scale = torch.clamp(self.max_grad_norm / (norm + 1e-6), max=1.0)
            gradients = [None if g is None else g * scale for g in gradients]
        else:  # the fused kernel divides the gradients by this as it reads them: no extra pass
            grad_scale = torch.clamp((norm + 1e-6) / self.max_grad_norm, min=1.0)
        offset = 0
        with torch.no_grad():
            for group, rate in zip(self.optimizer.param_groups, self.learning_rates):
                count = len(group["params"])
                pairs = [
                    (parameter, gradient)
                    for parameter, gradient in zip(
                        group["params"], gradients[offset : offset + count]
                    )
                    if gradient is not None
                ]
                offset += count
                if not pairs:
                    continue
                states = [self.optimizer.state[parameter] for parameter, _ in pairs]
                beta1, beta2 = group["betas"]
                adamw(
                    [parameter for parameter, _ in pairs],
                    [gradient for _, gradient in pairs],
                    [state["exp_avg"] for state in states],
                    [state["exp_avg_sq"] for state in states],
                    [],
                    [state["step"] for state in states],
                    foreach=False,
                    capturable=compiling,
                    fused=not compiling,
                    grad_scale=grad_scale,
                    amsgrad=False,
                    beta1=beta1,
                    beta2=beta2,
                    # capturable AdamW divides by the learning rate, NaN where it is 0 (the
                    # first warm-up step) and a gradient is 0: 1e-20 moves no fp32 weight
                    lr=torch.clamp(rate, min=1e-20) if compiling else group["lr"],
                    weight_decay=group["weight_decay"],
                    eps=group["eps"],
                    maximize=False,
                )


def _add_terms(sums: Terms, loss: torch.Tensor, terms: Terms, micro_batches: int) -> None:
    for name, value in {"loss": loss, **terms}.items():
        share = value.detach().float() / micro_batches
        sums[name] = sums[name] + share if name in sums else share
