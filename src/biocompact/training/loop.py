"""The training loop shared by pretraining and distillation, readable in one sitting.

AdamW with linear warm-up and decay, gradient accumulation, gradient clipping, bf16
autocast and fused AdamW on CUDA, a JSON-lines log every ``log_every`` steps and a
resumable checkpoint every ``checkpoint_every`` steps. A job killed at any moment and
started again continues from its last checkpoint and ends with the same weights as
an uninterrupted run (same seed, same device).
"""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import datasets
import torch
from transformers import get_linear_schedule_with_warmup

from biocompact.training.batches import BatchStream, DataPosition, MaskedBatcher
from biocompact.training.checkpoint import latest_checkpoint, rng_state, save_checkpoint, set_rng_state
from biocompact.training.objective import Objective

log = logging.getLogger(__name__)

LOG_FILE = "train_log.jsonl"


@dataclass(frozen=True)
class TrainingSettings:
    steps: int
    batch_size: int
    learning_rate: float
    warmup_steps: int = 0
    weight_decay: float = 0.01
    gradient_accumulation: int = 1
    max_grad_norm: float = 1.0
    adam_beta1: float = 0.9
    adam_beta2: float = 0.999
    adam_epsilon: float = 1e-6
    seed: int = 0
    log_every: int = 10
    checkpoint_every: int = 100


def pick_device() -> torch.device:
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def _optimizer(objective: Objective, settings: TrainingSettings, device: torch.device) -> torch.optim.AdamW:
    decay, no_decay = [], []
    for name, parameter in objective.named_parameters():
        if not parameter.requires_grad:
            continue
        (no_decay if parameter.ndim < 2 or "LayerNorm" in name else decay).append(parameter)
    return torch.optim.AdamW(
        [{"params": decay, "weight_decay": settings.weight_decay}, {"params": no_decay, "weight_decay": 0.0}],
        lr=settings.learning_rate,
        betas=(settings.adam_beta1, settings.adam_beta2),
        eps=settings.adam_epsilon,
        fused=device.type == "cuda",
    )


def train(
    objective: Objective,
    dataset: datasets.Dataset,
    batcher: MaskedBatcher,
    settings: TrainingSettings,
    checkpoint_dir: str | os.PathLike,
) -> Path:
    """Train ``objective`` for ``settings.steps`` optimizer steps; return the training log path.

    The log lives beside the checkpoints so that it survives a killed job and resumes
    with it; the caller copies it to the stage's outputs when training ends.
    """
    checkpoint_dir = Path(checkpoint_dir)
    checkpoint_dir.mkdir(parents=True, exist_ok=True)
    device = pick_device()
    torch.manual_seed(settings.seed)
    objective.to(device)
    optimizer = _optimizer(objective, settings, device)
    scheduler = get_linear_schedule_with_warmup(optimizer, settings.warmup_steps, settings.steps)
    step, position, seen_tokens = 0, DataPosition(), 0

    saved = latest_checkpoint(checkpoint_dir)
    if saved is not None:
        if saved["settings"] != asdict(settings):
            raise RuntimeError(
                f"checkpoints in {checkpoint_dir} were made with other settings; "
                f"delete that folder to start afresh.\n saved: {saved['settings']}\n now: {asdict(settings)}"
            )
        objective.load_trainable_state(saved["objective"])
        optimizer.load_state_dict(saved["optimizer"])
        scheduler.load_state_dict(saved["scheduler"])
        set_rng_state(saved["rng"])
        step, position, seen_tokens = saved["step"], DataPosition(**saved["position"]), saved["tokens"]
        log.info("resumed from checkpoint at step %d", step)
    log_path = checkpoint_dir / LOG_FILE
    _truncate_log(log_path, step)

    stream = BatchStream(dataset, settings.batch_size, settings.seed, position)
    batches = iter(stream)
    autocast = torch.autocast(device.type, dtype=torch.bfloat16, enabled=device.type == "cuda")
    objective.train()
    tokens, started = 0, time.perf_counter()
    while step < settings.steps:
        terms_sum: dict[str, float] = {}
        for micro_step in range(settings.gradient_accumulation):
            masking_rng = torch.Generator().manual_seed(
                settings.seed * 1_000_003 + step * settings.gradient_accumulation + micro_step
            )
            batch = {k: v.to(device, non_blocking=True) for k, v in batcher(next(batches), masking_rng).items()}
            batch_tokens = int(batch["attention_mask"].sum())
            tokens += batch_tokens
            seen_tokens += batch_tokens
            with autocast:
                loss, terms = objective(batch)
            (loss / settings.gradient_accumulation).backward()
            for name, value in {"loss": loss, **terms}.items():
                terms_sum[name] = terms_sum.get(name, 0.0) + float(value.detach()) / settings.gradient_accumulation
        torch.nn.utils.clip_grad_norm_(
            [p for p in objective.parameters() if p.requires_grad], settings.max_grad_norm
        )
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad(set_to_none=True)
        step += 1

        if step % settings.log_every == 0 or step == settings.steps:
            elapsed = time.perf_counter() - started
            record = {"step": step, **terms_sum, "lr": scheduler.get_last_lr()[0], "tokens": seen_tokens,
                      "tokens_per_second": tokens / elapsed, "elapsed_s": elapsed}
            with open(log_path, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(record) + "\n")
            log.info("step %d/%d loss %.4f (%.0f tokens/s)", step, settings.steps, terms_sum["loss"], record["tokens_per_second"])
            tokens, started = 0, time.perf_counter()
        if step % settings.checkpoint_every == 0 or step == settings.steps:
            save_checkpoint(checkpoint_dir, step, {
                "step": step,
                "tokens": seen_tokens,
                "position": asdict(stream.position),
                "settings": asdict(settings),
                "objective": objective.trainable_state(),
                "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict(),
                "rng": rng_state(),
            })
    objective.eval()
    return log_path


def _truncate_log(log_path: Path, step: int) -> None:
    """Drop log lines written after the checkpoint we resume from."""
    if not log_path.exists():
        return
    lines = log_path.read_text(encoding="utf-8").splitlines()
    kept = [line for line in lines if line.strip() and json.loads(line)["step"] <= step]
    log_path.write_text("".join(line + "\n" for line in kept), encoding="utf-8")
