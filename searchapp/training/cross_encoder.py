"""Train a cross-encoder: a sequence-classification head over [CLS] on any encoder, reading both texts together.

One label: binary cross-entropy for relevant / not (the reranker case) or MSE of sigmoid(logit) for graded
scores in 0..1; k labels: cross-entropy. Starting from a bi-encoder folder (e.g. the packaged MiniLM) the
head (and BERT's pooler, when the folder lacks it) starts random; the result is a normal Hugging Face
folder that `--reranker PATH` loads when it has one label.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Callable, Optional

import torch

from ..base.errors import ConfigError, ModelLoadError
from ..base.progress import CancelToken, ProgressFn, report
from ..models.device import choose_device
from ..models.resolve import resolve_model
from ..models.transformer import collate, load_tokenizer, model_inputs, pad_values_for, refuse_custom_code
from .batching import bucketed_batches
from .checkpoint import atomic_folder, check_output, quiet_transformers
from .data import TextColumns
from .losses import BinaryCrossEntropyLoss, CrossEntropyLoss, ScoreMSELoss
from .trainer import TrainingArgs, run_training, set_seed

__all__ = ["train_cross_encoder", "LOSSES", "load_classifier"]

LOSSES = ("auto", "bce", "mse", "ce")
_DEFAULT_FOR_KIND = {"binary": "bce", "graded": "mse", "classes": "ce"}


def load_classifier(spec: str, num_labels: int, device: torch.device) -> tuple[Any, Any, list[str]]:
    """(model, tokenizer, new_weights) from safetensors; new_weights lists what starts random (head, pooler)."""
    from transformers import AutoModelForSequenceClassification

    path = resolve_model(spec, kind="cross-encoder").path
    tokenizer = load_tokenizer(path)
    refuse_custom_code(path)
    try:
        with quiet_transformers():
            model, info = AutoModelForSequenceClassification.from_pretrained(
                str(path), num_labels=num_labels, use_safetensors=True, local_files_only=True,
                trust_remote_code=False, dtype=torch.float32,
                output_loading_info=True, ignore_mismatched_sizes=True)
    except Exception as exc:  # broken config, unknown architecture: one clean error
        raise ModelLoadError(f"cannot load {path} as a sequence classifier: {exc}") from exc
    fresh = sorted(set(info.get("missing_keys", ())) | {k for k, *_ in info.get("mismatched_keys", ())})
    body = [k for k in fresh if "classifier" not in k and "pooler" not in k and "score" not in k]
    if body:
        raise ModelLoadError(f"{path}: {len(body)} encoder weight(s) are missing ({', '.join(body[:3])} …); "
                             "is this a transformer encoder folder?")
    return model.to(device), tokenizer, fresh


def train_cross_encoder(base: str, data: TextColumns, output: Path, *, args: TrainingArgs = TrainingArgs(),
                        loss: str = "auto", max_length: int = 256, overwrite: bool = False,
                        pos_weight: Optional[float] = None,
                        progress: Optional[ProgressFn] = None, cancel: Optional[CancelToken] = None) -> dict[str, Any]:
    args.validate()
    if loss not in LOSSES:
        raise ConfigError(f"unknown cross-encoder loss {loss!r} (known: {', '.join(LOSSES)})")
    loss = _DEFAULT_FOR_KIND[data.kind] if loss == "auto" else loss
    if loss == "ce" and data.kind != "classes":
        raise ConfigError("the ce loss needs class-name labels (k labels); use bce for 0/1 or mse for scores")
    if loss in ("bce", "mse") and data.kind == "classes":
        raise ConfigError(f"the {loss} loss needs 0/1 or numeric labels, the data has classes {data.label_names}")
    if loss == "bce" and data.kind == "graded":
        raise ConfigError("the bce loss needs 0/1 labels; use mse for graded scores")
    num_labels = len(data.label_names) if loss == "ce" else 1
    output = check_output(output, overwrite)
    set_seed(args.seed)  # before loading: the new head's initialization follows the seed
    device = choose_device(args.device)
    model, tokenizer, fresh = load_classifier(base, num_labels, device)
    limit = int(getattr(model.config, "max_position_embeddings", 512) or 512)
    max_length = min(int(max_length), limit)
    losses: dict[str, Callable[[], torch.nn.Module]] = {
        "bce": lambda: BinaryCrossEntropyLoss(pos_weight), "mse": ScoreMSELoss, "ce": CrossEntropyLoss}
    loss_fn = losses[loss]()

    report(progress, "tokenizing", 0, len(data))
    enc = tokenizer(data.columns[0], data.columns[1], truncation="longest_first", max_length=max_length, padding=False)
    features = model_inputs(tokenizer, enc)
    lengths = [len(ids) for ids in features["input_ids"]]
    labels = torch.tensor(data.labels, dtype=torch.float32, device=device)
    pad = pad_values_for(tokenizer)

    def step_loss(batch: list[int]) -> torch.Tensor:
        inputs = collate(features, batch, pad_values=pad, padding_side=tokenizer.padding_side, device=device)
        logits = model(**inputs, return_dict=True).logits  # (batch, num_labels)
        return loss_fn(logits, labels[batch])

    def batches(epoch: int) -> list[list[int]]:
        return bucketed_batches(lengths, args.batch_size, seed=args.seed + epoch)

    stats = run_training([model], step_loss, batches, args, device, progress=progress, cancel=cancel)
    if num_labels == 1:
        model.config.id2label, model.config.label2id = {0: "relevance"}, {"relevance": 0}
    else:
        model.config.id2label = dict(enumerate(data.label_names))
        model.config.label2id = {n: i for i, n in enumerate(data.label_names)}
    info = {
        "kind": "cross-encoder",
        "base": base,
        "loss": loss,
        "num_labels": num_labels,
        "labels": data.label_names or None,
        "data_kind": data.kind,
        "data": data.sources,
        "examples": len(data),
        "positives": sum(1 for y in data.labels or () if y > 0) if data.kind == "binary" else None,
        "max_length": max_length,
        "initialized_randomly": fresh,
        "args": args.to_json(),
        "stats": stats.to_json(),
        "finished": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    report(progress, "saving", 0, 1)
    with atomic_folder(output, overwrite) as tmp:
        with quiet_transformers():
            model.save_pretrained(tmp, safe_serialization=True)
            tokenizer.save_pretrained(tmp)
        (tmp / "training_info.json").write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    report(progress, "saving", 1, 1)
    return {"output": str(output), **info}
