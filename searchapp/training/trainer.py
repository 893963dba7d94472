"""The optimization loop both trainers share: AdamW, linear warm-up then decay, mixed precision, cancel.

Paper defaults (Sentence-BERT): batch 16, learning rate 2e-5, linear warm-up over the first 10% of the
steps, 1 epoch. Weight decay 0.01 (not on biases and LayerNorm) and gradient clipping at norm 1 are
sentence-transformers' defaults. Precision "auto": bf16 autocast on CPUs where bf16 is native and faster (parameters and
optimizer state stay fp32), fp16 autocast with a GradScaler on CUDA, fp32 elsewhere.
"""

from __future__ import annotations

import contextlib
import math
import random
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterable, Optional, Sequence

import numpy as np
import torch

from ..base.errors import ConfigError
from ..base.progress import CancelToken, ProgressFn, report
from ..models.device import choose_dtype
from ..models.transformer import torch_threads

__all__ = ["TrainingArgs", "TrainStats", "set_seed", "run_training", "training_precision", "linear_warmup_schedule"]


@dataclass(frozen=True)
class TrainingArgs:
    batch_size: int = 16
    learning_rate: float = 2e-5
    epochs: int = 1
    warmup_ratio: float = 0.1
    weight_decay: float = 0.01
    max_grad_norm: float = 1.0
    seed: int = 42
    device: str = "auto"
    precision: str = "auto"  # auto | fp32 | bf16 | fp16 (CUDA)
    threads: int = 0
    max_seq_length: Optional[int] = None
    max_steps: Optional[int] = None  # stop early (smoke runs); None: epochs × batches

    def validate(self) -> "TrainingArgs":
        checks = [
            (self.batch_size >= 1, "batch size must be >= 1"),
            (self.learning_rate > 0, "learning rate must be > 0"),
            (self.epochs >= 1, "epochs must be >= 1"),
            (0.0 <= self.warmup_ratio < 1.0, "warm-up ratio must be in [0, 1)"),
            (self.max_steps is None or self.max_steps >= 1, "max steps must be >= 1"),
        ]
        for ok, msg in checks:
            if not ok:
                raise ConfigError(msg)
        return self

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class TrainStats:
    steps: int = 0
    examples: int = 0
    seconds: float = 0.0
    precision: str = "fp32"
    device: str = "cpu"
    losses: list[float] = field(default_factory=list)  # one per step

    def to_json(self) -> dict[str, Any]:
        n = max(1, min(50, len(self.losses) // 10 or 1))
        head = self.losses[:n]
        tail = self.losses[-n:]
        return {
            "steps": self.steps,
            "examples": self.examples,
            "seconds": self.seconds,
            "precision": self.precision,
            "device": self.device,
            "loss_first": float(np.mean(head)) if head else None,
            "loss_last": float(np.mean(tail)) if tail else None,
        }


def set_seed(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed % (2**32))
    torch.manual_seed(seed)


def training_precision(device: torch.device, precision: str) -> torch.dtype:
    return choose_dtype(device, precision)


def _param_groups(modules: Iterable[torch.nn.Module], weight_decay: float) -> list[dict[str, Any]]:
    decay: list[torch.nn.Parameter] = []
    no_decay: list[torch.nn.Parameter] = []
    for module in modules:
        for name, p in module.named_parameters():
            if not p.requires_grad:
                continue
            (no_decay if name.endswith("bias") or "LayerNorm" in name or "layer_norm" in name else decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


def run_training(
    modules: Sequence[torch.nn.Module],
    step_loss: Callable[[list[int]], torch.Tensor],
    make_batches: Callable[[int], list[list[int]]],
    args: TrainingArgs,
    device: torch.device,
    *,
    progress: Optional[ProgressFn] = None,
    cancel: Optional[CancelToken] = None,
) -> TrainStats:
    """Train `modules` (every trainable parameter) on `step_loss(batch indices) -> scalar loss`.

    `make_batches(epoch)` gives each epoch's batches. Progress reports stage "training" once per step with
    the running loss in the message; `cancel` is checked before every step (raises Cancelled).
    """
    epochs = [make_batches(e) for e in range(args.epochs)]
    total = sum(len(b) for b in epochs)
    if args.max_steps is not None:
        total = min(total, args.max_steps)
    if total == 0:
        raise ConfigError("no training batches (empty data set)")
    dtype = training_precision(device, args.precision)
    optimizer = torch.optim.AdamW(_param_groups(modules, args.weight_decay), lr=args.learning_rate)
    scheduler = linear_warmup_schedule(optimizer, math.ceil(total * args.warmup_ratio), total)
    scaler = torch.amp.GradScaler("cuda") if dtype == torch.float16 else None
    params = [p for m in modules for p in m.parameters() if p.requires_grad]
    for m in modules:
        m.train()

    stats = TrainStats(precision={torch.float32: "fp32", torch.bfloat16: "bf16", torch.float16: "fp16"}[dtype],
                       device=str(device))
    t0 = time.perf_counter()
    running: Optional[float] = None
    step = 0
    with torch_threads(args.threads):
        for batches in epochs:
            for batch in batches:
                if step >= total:
                    break
                if cancel is not None:
                    cancel.check()
                autocast = (torch.autocast(device_type=device.type, dtype=dtype) if dtype != torch.float32
                            else contextlib.nullcontext())
                with autocast:
                    loss = step_loss(batch)
                if not torch.isfinite(loss):
                    raise FloatingPointError(f"the loss became {loss.item()} at step {step + 1}")
                if scaler is not None:
                    scaler.scale(loss).backward()
                    scaler.unscale_(optimizer)
                    torch.nn.utils.clip_grad_norm_(params, args.max_grad_norm)
                    scaler.step(optimizer)
                    scaler.update()
                else:
                    loss.backward()
                    torch.nn.utils.clip_grad_norm_(params, args.max_grad_norm)
                    optimizer.step()
                scheduler.step()
                optimizer.zero_grad(set_to_none=True)
                value = float(loss.detach())
                stats.losses.append(value)
                stats.examples += len(batch)
                step += 1
                running = value if running is None else 0.95 * running + 0.05 * value  # smoothed for display
                report(progress, "training", step, total, f"loss {running:.4f}")
    for m in modules:
        m.eval()
    stats.steps = step
    stats.seconds = time.perf_counter() - t0
    return stats


def linear_warmup_schedule(optimizer: torch.optim.Optimizer, warmup: int, total: int) -> torch.optim.lr_scheduler.LambdaLR:
    """Learning rate 0 → peak over `warmup` steps, then linearly down to 0 at `total` (transformers' schedule)."""

    def factor(step: int) -> float:
        if step < warmup:
            return step / max(1, warmup)
        return max(0.0, (total - step) / max(1, total - warmup))

    return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)
