"""Fine-tune a bi-encoder with one of the Sentence-BERT objectives and save it as a loadable model folder."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Optional

import torch

from ..base.errors import ConfigError
from ..base.progress import CancelToken, ProgressFn, report
from ..models.device import choose_device
from .batching import bucketed_batches
from .checkpoint import check_output
from .data import OBJECTIVES, TextColumns
from .losses import CosineSimilarityLoss, SoftmaxLoss, TripletLoss
from .sentence_model import SentenceModel, load_sentence_model
from .trainer import TrainingArgs, run_training, set_seed

__all__ = ["train_bi_encoder", "make_loss"]


def make_loss(objective: str, model: SentenceModel, data: TextColumns, margin: float = 1.0) -> torch.nn.Module:
    if objective == "regression":
        return CosineSimilarityLoss()
    if objective == "softmax":
        return SoftmaxLoss(model.dim, len(data.label_names))
    if objective == "triplet":
        return TripletLoss(margin)
    raise ConfigError(f"unknown objective {objective!r} (known: {', '.join(OBJECTIVES)})")


def train_bi_encoder(base: str, objective: str, data: TextColumns, output: Path, *,
                     args: TrainingArgs = TrainingArgs(), pooling: Optional[str] = None, margin: float = 1.0,
                     overwrite: bool = False,
                     model: Optional[SentenceModel] = None,
                     progress: Optional[ProgressFn] = None, cancel: Optional[CancelToken] = None) -> dict[str, Any]:
    """Train `base` (a model spec) on `data` and write it to `output`; returns a JSON-able summary.

    Nothing is written unless training finishes: the folder appears complete or not at all.
    """
    args.validate()
    expected_columns = 3 if objective == "triplet" else 2
    if len(data.columns) != expected_columns:
        raise ConfigError(f"the {objective} objective needs {expected_columns} text columns, got {len(data.columns)}")
    output = check_output(output, overwrite)
    set_seed(args.seed)
    device = choose_device(args.device)
    if model is None:
        model = load_sentence_model(base, pooling=pooling, device=device, max_seq_length=args.max_seq_length)
    loss_fn = make_loss(objective, model, data, margin).to(device)

    report(progress, "tokenizing", 0, len(data))
    features = [model.tokenize(col) for col in data.columns]
    lengths = [max(len(f["input_ids"][i]) for f in features) for i in range(len(data))]
    labels = torch.tensor(data.labels, dtype=torch.float32, device=device) if data.labels is not None else None

    def step_loss(batch: list[int]) -> torch.Tensor:
        embeddings = [model(f, batch) for f in features]  # one (batch, dim) tensor per column
        return loss_fn(embeddings, labels[batch] if labels is not None else None)

    def batches(epoch: int) -> list[list[int]]:
        return bucketed_batches(lengths, args.batch_size, seed=args.seed + epoch)

    stats = run_training([model, loss_fn], step_loss, batches, args, device, progress=progress, cancel=cancel)
    info = {
        "kind": "bi-encoder",
        "base": base,
        "objective": objective,
        "pooling": model.pooling,
        "margin": margin if objective == "triplet" else None,
        "labels": data.label_names or None,
        "data": data.sources,
        "examples": len(data),
        "args": args.to_json(),
        "stats": stats.to_json(),
        "finished": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    report(progress, "saving", 0, 1)
    path = model.save(output, overwrite=overwrite, info=info)
    report(progress, "saving", 1, 1)
    return {"output": str(path), **info}
