"""A trainable bi-encoder: the Hugging Face transformer + a pooling mode, as one nn.Module.

The same pieces as the inference BiEncoder (resolve → safetensors load → registry pooling), but in fp32
with gradients, and without the inference locks. Texts are tokenized once up front (no padding) and each
batch is padded only to its own longest text.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Sequence

import torch
from torch import nn

from ..base.errors import ConfigError
from ..models.pooling import POOLING_MODES, needs_hidden_states, pool
from ..models.resolve import resolve_model
from ..models.transformer import collate, load_model, load_tokenizer, model_inputs, pad_values_for
from ..models.bi_encoder import sentence_bert_max_seq_length
from .checkpoint import atomic_folder, quiet_transformers, read_saved_pooling, write_pooling_files

if TYPE_CHECKING:
    from transformers import PreTrainedModel

__all__ = ["SentenceModel", "load_sentence_model", "Tokenized"]

DEFAULT_MAX_SEQ_LENGTH = 256  # MiniLM's own limit; longer inputs cost quadratically on a CPU

Tokenized = dict[str, list[list[int]]]


class SentenceModel(nn.Module):
    def __init__(self, transformer: PreTrainedModel, tokenizer: Any, pooling: str, max_seq_length: int, source: str) -> None:
        super().__init__()
        if pooling not in POOLING_MODES:
            raise ConfigError(f"unknown pooling {pooling!r} (known: {', '.join(POOLING_MODES)})")
        self.transformer = transformer
        self.tokenizer = tokenizer
        self.pooling = pooling
        self.max_seq_length = max_seq_length
        self.source = source
        self._needs_hidden = needs_hidden_states(pooling)
        self._pad = pad_values_for(tokenizer)

    @property
    def dim(self) -> int:
        return int(self.transformer.config.hidden_size)

    @property
    def device(self) -> torch.device:
        return next(self.transformer.parameters()).device

    def tokenize(self, texts: Sequence[str]) -> Tokenized:
        enc = self.tokenizer(list(texts), truncation=True, max_length=self.max_seq_length, padding=False)
        return model_inputs(self.tokenizer, enc)

    def forward(self, features: Tokenized, indices: Sequence[int]) -> torch.Tensor:
        """(batch, dim) float32 sentence vectors (not normalized) of rows `indices` of pre-tokenized texts."""
        inputs = collate(features, indices, pad_values=self._pad, padding_side=self.tokenizer.padding_side,
                         device=self.device)
        out = self.transformer(**inputs, output_hidden_states=self._needs_hidden, return_dict=True)
        return pool(out.last_hidden_state, inputs["attention_mask"], self.pooling,
                    hidden_states=out.hidden_states if self._needs_hidden else None)

    def save(self, output: Path, *, overwrite: bool = False, info: Optional[dict[str, Any]] = None) -> Path:
        """Write a Hugging Face folder + pooling files atomically; returns the final path."""
        with atomic_folder(output, overwrite) as tmp:
            with quiet_transformers():
                self.transformer.save_pretrained(tmp, safe_serialization=True)
                self.tokenizer.save_pretrained(tmp)
            write_pooling_files(tmp, self.pooling, self.dim, self.max_seq_length)
            if info is not None:
                (tmp / "training_info.json").write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
        return Path(output).expanduser().resolve()


def load_sentence_model(spec: str, *, pooling: Optional[str] = None, device: torch.device,
                        max_seq_length: Optional[int] = None) -> SentenceModel:
    """Load a bi-encoder for training; `pooling=None` keeps the one the folder was saved with (else mean)."""
    resolved = resolve_model(spec, kind="bi-encoder")
    path = resolved.path
    tokenizer = load_tokenizer(path, require_fast=True)
    # fp32 weights: reduced precision comes from autocast, so optimizer state and updates stay exact.
    transformer = load_model(path, "AutoModel", device, torch.float32, optional_prefixes=("pooler.",))
    if pooling is None:
        pooling = read_saved_pooling(path) or "mean"
    limit = int(getattr(transformer.config, "max_position_embeddings", 512) or 512)
    if max_seq_length is None:
        max_seq_length = min(sentence_bert_max_seq_length(path) or DEFAULT_MAX_SEQ_LENGTH, limit)
    if not 8 <= max_seq_length <= limit:
        raise ConfigError(f"max_seq_length {max_seq_length} is outside 8..{limit} for {path}")
    return SentenceModel(transformer, tokenizer, pooling, int(max_seq_length), str(path))
