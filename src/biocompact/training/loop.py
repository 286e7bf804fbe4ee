"""The training loop shared by pretraining and distillation, readable in one sitting.

AdamW with linear warm-up and decay, gradient accumulation, gradient clipping, bf16
autocast (``bf16``, on a GPU or a CPU with native bf16), fused AdamW (on a GPU and a CPU), batches masked ahead in ``data_workers``
``DataLoader`` processes into pinned memory, the whole step compiled with ``torch.compile``
(``compile``, ``biocompact.training.step``), data parallelism over the processes torchrun starts
(``biocompact.training.distributed``), a JSON-lines log every ``log_every`` steps (with
MFU on a GPU) and the same values as TensorBoard curves, a progress bar on an interactive console, and a resumable checkpoint
every ``checkpoint_every`` steps. The GPU switches fall back to plain CPU training (fp32
without native bf16, batches made in the training thread when ``data_workers`` is 0, ``compile``
works on both). A job killed at any moment and started again
continues from its last checkpoint and ends with the same weights as an uninterrupted
run (same seed, same devices).
"""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import asdict
from pathlib import Path

import datasets
import torch
from torch.nn.parallel import DistributedDataParallel
from tqdm.auto import tqdm
from transformers import get_linear_schedule_with_warmup

from biocompact.tracking.trackers import RunParams, ScalarTrackers, TrackingSettings
from biocompact.training import distributed
from biocompact.training.batches import BatchOrder, DataPosition, MaskedBatcher, MaskedBatches
from biocompact.training.checkpoint import (
    latest_checkpoint,
    rng_state,
    save_checkpoint,
    set_rng_state,
)
from biocompact.training.objective import Objective
from biocompact.training.precision import native_bf16
from biocompact.training.settings import TrainingSettings
from biocompact.training.step import TrainingStep, compiles
from biocompact.training.throughput import FlopCounter, peak_tflops

log = logging.getLogger(__name__)

LOG_FILE = "train_log.jsonl"
TENSORBOARD_DIR = "tensorboard"  # event files of the log's values, beside the checkpoints


# Settings that change what is logged or saved or how fast, not the trained weights
# (beyond rounding): a checkpoint made with other values of these is resumed.
NEUTRAL_SETTINGS = ("log_every", "checkpoint_every", "peak_tflops", "data_workers", "compile")


def pick_device() -> torch.device:
    return distributed.device()


def _comparable(settings: dict) -> dict:
    """The settings that must match to resume."""
    return {key: value for key, value in settings.items() if key not in NEUTRAL_SETTINGS}


def adamw_optimizer(objective: Objective, settings: TrainingSettings) -> torch.optim.AdamW:
    """AdamW over the trainable parameters, without weight decay for biases and LayerNorms."""
    decay: list[torch.nn.Parameter] = []
    no_decay: list[torch.nn.Parameter] = []
    for name, parameter in objective.named_parameters():
        if not parameter.requires_grad:
            continue
        (no_decay if parameter.ndim < 2 or "LayerNorm" in name else decay).append(parameter)
    return torch.optim.AdamW(
        [
            {"params": decay, "weight_decay": settings.weight_decay},
            {"params": no_decay, "weight_decay": 0.0},
        ],
        lr=settings.learning_rate,
        betas=(settings.adam_beta1, settings.adam_beta2),
        eps=settings.adam_epsilon,
        # one kernel over all parameters, faster than foreach on a CPU too
        # (measured: docs/speed.md, section "Figures behind code choices")
        fused=True,
    )


def train(
    objective: Objective,
    dataset: datasets.Dataset,
    batcher: MaskedBatcher,
    settings: TrainingSettings,
    checkpoint_dir: str | os.PathLike,
    *,
    tracking: TrackingSettings | None = None,
    run_name: str = "",
    run_params: RunParams | None = None,
) -> Path:
    """Train ``objective`` for ``settings.steps`` optimizer steps; return the training log path
    (the trackers of ``tracking`` get run ``run_name`` with ``run_params``).

    The log lives beside the checkpoints so that it survives a killed job and resumes
    with it; the caller copies it to the stage's outputs when training ends. Under
    torchrun every process calls this; only the main one writes.
    """
    checkpoint_dir = Path(checkpoint_dir)
    checkpoint_dir.mkdir(parents=True, exist_ok=True)
    device = pick_device()
    rank, world_size, main = distributed.rank(), distributed.world_size(), distributed.is_main()
    torch.manual_seed(settings.seed)
    objective.to(device)
    optimizer = adamw_optimizer(objective, settings)
    scheduler = get_linear_schedule_with_warmup(optimizer, settings.warmup_steps, settings.steps)
    step, seen_tokens = 0, 0
    order = BatchOrder(dataset, settings.batch_size, settings.seed, rank, world_size)

    saved = latest_checkpoint(checkpoint_dir)
    if saved is not None:
        if _comparable(saved["settings"]) != _comparable(asdict(settings)):
            raise RuntimeError(
                f"checkpoints in {checkpoint_dir} were made with other settings; "
                f"delete that folder to start afresh.\n saved: {saved['settings']}\n now: {asdict(settings)}"
            )
        objective.load_trainable_state(saved["objective"])
        optimizer.load_state_dict(saved["optimizer"])
        scheduler.load_state_dict(saved["scheduler"])
        rng = saved["rng"]  # one state per process
        set_rng_state(rng[rank] if len(rng) == world_size else rng[0])
        step, seen_tokens = saved["step"], saved["tokens"]
        position = DataPosition(**saved["position"])
        if position != order.position_after(step * settings.gradient_accumulation):
            raise RuntimeError(
                f"the checkpoint of step {step} in {checkpoint_dir} is at another place in the "
                "training data: delete that folder to start afresh"
            )
        log.info("resumed from checkpoint at step %d", step)
    log_path = checkpoint_dir / LOG_FILE
    if main:
        _truncate_log(log_path, step)
        log_path.touch()  # stays empty when there is no step to train (steps: 0)
        # the log's records as live TensorBoard curves (a resumed job starts a new file),
        # and in the trackers of ``tracking`` as run ``run_name``
        curves = ScalarTrackers(checkpoint_dir / TENSORBOARD_DIR, tracking, run_name, run_params)

    # micro-batch k masked with seed + k: seed * 1_000_003 + step * accumulation + micro-step
    masking_seed = settings.seed * 1_000_003 + rank * 2**40
    accumulation = settings.gradient_accumulation
    batches = MaskedBatches(order, batcher, masking_seed, settings.steps * accumulation).iterate(
        step * accumulation, settings.data_workers, pin_memory=device.type == "cuda"
    )
    data_parallel = None
    if world_size > 1:
        data_parallel = DistributedDataParallel(
            objective,
            device_ids=[device.index] if device.type == "cuda" else None,
            find_unused_parameters=not objective.every_parameter_trained,
        )
    autocast = torch.autocast(
        device.type, dtype=torch.bfloat16, enabled=settings.bf16 and native_bf16(device)
    )
    training_step = TrainingStep(
        objective,
        optimizer,
        max_grad_norm=settings.max_grad_norm,
        autocast=autocast,
        compiled=compiles(settings.compile, device),
        data_parallel=data_parallel,
    )
    peak = peak_tflops(device, settings.peak_tflops)
    count_flops = (
        FlopCounter(objective.model_to_save(), objective.last_layer_at_predictions())
        if peak
        else None
    )
    progress = tqdm(
        total=settings.steps,
        initial=step,
        desc="training",
        unit="step",
        disable=None if main else True,
    )
    objective.train()
    tokens, flops, started = 0, 0.0, time.perf_counter()
    while step < settings.steps:
        micro_batches = []
        for _ in range(settings.gradient_accumulation):
            batch = next(batches)
            # every process sees an equal share of each batch: count this one's x processes
            batch_tokens = int(batch["attention_mask"].sum()) * world_size
            tokens += batch_tokens
            seen_tokens += batch_tokens
            if count_flops:
                flops += count_flops(batch)
            micro_batches.append({k: v.to(device, non_blocking=True) for k, v in batch.items()})
        terms_sum = training_step(micro_batches)  # read (a GPU sync) only when logged
        scheduler.step()
        step += 1
        progress.update()

        if step % settings.log_every == 0 or step == settings.steps:
            terms_now = {name: float(value) for name, value in terms_sum.items()}
            elapsed = time.perf_counter() - started
            record = {
                "step": step,
                **terms_now,
                "lr": scheduler.get_last_lr()[0],
                "tokens": seen_tokens,
                "tokens_per_second": tokens / elapsed,
                "elapsed_s": elapsed,
            }
            if peak:
                record["mfu"] = flops / elapsed / (peak * 1e12)  # per device: each has its own peak
            if main:
                with open(log_path, "a", encoding="utf-8") as handle:
                    handle.write(json.dumps(record) + "\n")
                curves.add(step, {f"train/{k}": v for k, v in record.items() if k != "step"})
                log.info(
                    "step %d/%d loss %.4f (%.0f tokens/s)",
                    step,
                    settings.steps,
                    terms_now["loss"],
                    record["tokens_per_second"],
                )
            progress.set_postfix(loss=f"{terms_now['loss']:.3f}", refresh=False)
            tokens, flops, started = 0, 0.0, time.perf_counter()
        if step % settings.checkpoint_every == 0 or step == settings.steps:
            rng_states = distributed.gather(rng_state())
            if main:
                save_checkpoint(
                    checkpoint_dir,
                    step,
                    {
                        "step": step,
                        "tokens": seen_tokens,
                        "position": asdict(
                            order.position_after(step * settings.gradient_accumulation)
                        ),
                        "settings": asdict(settings),
                        "objective": objective.trainable_state(),
                        "optimizer": optimizer.state_dict(),
                        "scheduler": scheduler.state_dict(),
                        "rng": rng_states,
                    },
                )
    progress.close()
    if main:
        curves.close()
    distributed.barrier()
    objective.eval()
    return log_path


def _truncate_log(log_path: Path, step: int) -> None:
    """Drop log lines written after the checkpoint we resume from."""
    if not log_path.exists():
        return
    lines = log_path.read_text(encoding="utf-8").splitlines()
    kept = [line for line in lines if line.strip() and json.loads(line)["step"] <= step]
    log_path.write_text("".join(line + "\n" for line in kept), encoding="utf-8")
