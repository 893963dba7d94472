"""What a bi-encoder IS (fingerprint, vector size) read from its files, without torch or transformers.

The library checks and records the model it was built with before every sync and dense search. Loading
the model only to learn its fingerprint costs seconds of start-up (torch + transformers imports, weights);
an unchanged `index` or a mismatch check needs none of that. The values here must equal BiEncoder's
(`fingerprint`, `dim`, `max_seq_length`); tests/test_fast_start.py compares them on real models.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from ..base.errors import ModelLoadError
from .resolve import ResolvedModel, resolve_model

__all__ = ["ModelIdentity", "bi_encoder_identity"]

_HUGE = 100_000  # tokenizers without a limit report a huge sentinel (transformers: VERY_LARGE_INTEGER)


@dataclass(frozen=True)
class ModelIdentity:
    resolved: ResolvedModel
    dim: int
    max_seq_length: int
    fingerprint: str


def bi_encoder_identity(spec: str, *, pooling: str, allow_download: bool = False) -> ModelIdentity:
    resolved = resolve_model(spec, kind="bi-encoder", allow_download=allow_download)
    path = resolved.path
    cfg = _read_json(path / "config.json") or {}
    try:
        dim = int(cfg["hidden_size"])
    except (KeyError, TypeError, ValueError):
        raise ModelLoadError(f"{path / 'config.json'}: no hidden_size") from None
    limit = int(cfg.get("max_position_embeddings") or 512)
    tok_max = int((_read_json(path / "tokenizer_config.json") or {}).get("model_max_length") or 0)
    if 0 < tok_max < _HUGE:
        limit = min(limit, tok_max)
    configured = _sentence_bert_max_seq_length(path)
    msl = min(configured, limit) if configured else min(limit, 512)
    fingerprint = hashlib.sha256(f"{resolved.sha256}|pooling={pooling}|max_seq_length={msl}".encode()).hexdigest()[:16]
    return ModelIdentity(resolved=resolved, dim=dim, max_seq_length=msl, fingerprint=fingerprint)


def _sentence_bert_max_seq_length(path: Path) -> Optional[int]:
    # Same rule as bi_encoder.sentence_bert_max_seq_length (beside the weights or one level up).
    folders = [path] + ([path.parent] if (path.parent / "modules.json").is_file() else [])
    for folder in folders:
        data = _read_json(folder / "sentence_bert_config.json")
        if data is not None:
            value = data.get("max_seq_length")
            return int(value) if value else None
    return None


def _read_json(file: Path) -> Optional[dict]:
    if not file.is_file():
        return None
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelLoadError(f"{file}: {exc}") from None
    return data if isinstance(data, dict) else None
