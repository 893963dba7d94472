"""What a model folder gives the bi-encoder: its tokenizer and model, and the longest input it reads.

A plain BERT on the CPU, pooled from its last layer, loads from tokenizer.json and the safetensors alone
(plain_bert.py, tokenizer_file.py): no transformers import, ~6 s less start on a 2-core CPU. Anything else
loads through transformers. max_seq_length is what the caller asks, else what sentence_bert_config.json
declares, bounded by the model's position embeddings and the tokenizer's own limit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import torch

from ..base.errors import ConfigError, ModelLoadError
from . import plain_bert
from .resolve import ResolvedModel
from .tokenizer_file import FileTokenizer
from .transformer import apply_dtype, load_model, load_tokenizer

__all__ = ["BiEncoderLoading", "sentence_bert_max_seq_length"]


class BiEncoderLoading:
    """The loading steps of a BiEncoder (which sets the attributes below before it calls them)."""

    resolved: ResolvedModel
    device: torch.device
    dtype: torch.dtype
    loaded_by: str  # "files" (plain_bert) or "transformers"
    _model: Any
    _tokenizer: Any
    _needs_hidden: bool  # the pooling reads hidden states before the last layer

    def _load(self, path: Path) -> tuple[Any, Any]:
        """(tokenizer, model): from tokenizer.json and the safetensors alone for a plain BERT on the CPU pooled from
        its last layer (plain_bert.py: no transformers import, ~6 s less start on a 2-core CPU); through
        transformers otherwise. `loaded_by` says which."""
        self.loaded_by = "transformers"
        if self.device.type == "cpu" and not self._needs_hidden:
            tok = FileTokenizer.from_files(path)  # None for a folder needing its own code: refused below
            model = plain_bert.load(path) if tok is not None else None
            if model is not None:
                self.loaded_by = "files"
                return tok, apply_dtype(model, self.dtype)
        # BERT's pooler (a dense layer on [CLS]) is never read by token pooling, so checkpoints may lack it.
        return (load_tokenizer(path, require_fast=True),
                load_model(path, "AutoModel", self.device, self.dtype, optional_prefixes=("pooler.",)))

    def _choose_max_seq_length(self, requested: Optional[int]) -> int:
        # Position embeddings bound what the model can read at all.
        limit = int(getattr(self._model.config, "max_position_embeddings", 512) or 512)
        tok_max = int(self._tokenizer.model_max_length or 0)
        if 0 < tok_max < 100_000:  # unset tokenizers report a huge sentinel
            limit = min(limit, tok_max)
        if requested is not None:
            if requested < 2 or requested > limit:
                raise ConfigError(f"max_seq_length {requested} is outside 2..{limit} for {self.resolved.path}")
            return int(requested)
        configured = sentence_bert_max_seq_length(self.resolved.path)
        return min(configured, limit) if configured else min(limit, 512)


def sentence_bert_max_seq_length(path: Path) -> Optional[int]:
    """max_seq_length from sentence_bert_config.json, beside the weights or one level up (module folders)."""
    import json

    folders = [path] + ([path.parent] if (path.parent / "modules.json").is_file() else [])
    for folder in folders:
        cfg = folder / "sentence_bert_config.json"
        if cfg.is_file():
            try:
                value = json.loads(cfg.read_text(encoding="utf-8")).get("max_seq_length")
            except (OSError, ValueError) as exc:
                raise ModelLoadError(f"{cfg}: {exc}") from None
            return int(value) if value else None
    return None
