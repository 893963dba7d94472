"""What a bi-encoder IS (fingerprint, vector size) read from its files, without torch or transformers.

The library checks and records the model it was built with before every sync and dense search. Loading
the model only to learn its fingerprint costs seconds of start-up (torch + transformers imports, weights);
an unchanged `index` or a mismatch check needs none of that. The values here must equal BiEncoder's
(`fingerprint`, `dim`, `max_seq_length`); tests/e2e/test_fast_start.py compares them on real models.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Optional, Protocol

from ..base.config import Config
from ..base.errors import ModelLoadError
from .config_json import read_config_json
from .resolve import ResolvedModel, resolve_model
from .sentence_conventions import Conventions, describe_prompt, read_conventions, resolve_pooling

__all__ = ["ModelIdentity", "bi_encoder_identity", "plain_bert_config", "library_settings", "reindex_reasons",
           "built_with", "reindex_message", "shared_mismatch_message", "model_fingerprint"]

_HUGE = 100_000  # tokenizers without a limit report a huge sentinel (transformers: VERY_LARGE_INTEGER)


@dataclass(frozen=True)
class ModelIdentity:
    resolved: ResolvedModel
    dim: int
    max_seq_length: int
    fingerprint: str
    plain_bert: bool = False  # a BERT lean_bert's fused CPU forward covers (the probe at load has the last word)
    pooling: str = "mean"  # the one that runs: models.pooling, or for "auto" the model's declared one
    conventions: Conventions = Conventions(None, False)  # what the model's files declare (sentence_conventions)

    @property
    def passage_prompt(self) -> str:
        return self.conventions.passage_prompt

    @property
    def query_prompt(self) -> str:
        return self.conventions.query_prompt


def model_fingerprint(weights_sha256: str, pooling: str, max_seq_length: int, passage_prompt: str = "") -> str:
    """What passage vectors depend on, in 16 hex digits: the weights, the pooling, the window and the passage
    prompt (left out when empty, so a library built before prompts existed keeps its fingerprint). The query
    prompt is not in it: changing it re-embeds nothing (decision 0112)."""
    text = f"{weights_sha256}|pooling={pooling}|max_seq_length={max_seq_length}"
    if passage_prompt:
        text += f"|passage_prompt={passage_prompt}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def bi_encoder_identity(spec: str, *, pooling: str, prompts: bool = True) -> ModelIdentity:
    """`pooling`: models.pooling ("auto": the model's declared one); `prompts` False: the model's are not used
    (sentence_conventions.library_keep)."""
    resolved = resolve_model(spec, kind="bi-encoder")
    path = resolved.path
    conventions = read_conventions(path, prompts=prompts)
    pooling = resolve_pooling(pooling, conventions, spec)
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
    fingerprint = model_fingerprint(resolved.sha256, pooling, msl, conventions.passage_prompt)
    return ModelIdentity(resolved=resolved, dim=dim, max_seq_length=msl, fingerprint=fingerprint,
                         plain_bert=plain_bert_config(cfg), pooling=pooling, conventions=conventions)


def plain_bert_config(cfg: Mapping[str, Any]) -> bool:
    """Whether a model config (config.json's keys) is a plain BERT encoder lean_bert reproduces: absolute
    positions, GELU or ReLU, no decoder or cross-attention. One rule for `status` (no torch) and lean_bert."""
    return bool(cfg.get("model_type") == "bert" and cfg.get("hidden_act") in ("gelu", "relu")
                and (cfg.get("position_embedding_type") or "absolute") == "absolute"
                and not cfg.get("is_decoder") and not cfg.get("add_cross_attention"))


def _sentence_bert_max_seq_length(path: Path) -> Optional[int]:
    # Same rule as bi_encoder_loading.sentence_bert_max_seq_length (beside the weights or one level up).
    folders = [path] + ([path.parent] if (path.parent / "modules.json").is_file() else [])
    for folder in folders:
        data = _read_json(folder / "sentence_bert_config.json")
        if data is not None:
            value = data.get("max_seq_length")
            return int(value) if value else None
    return None


def _read_json(file: Path) -> Optional[dict[str, Any]]:
    """The JSON object in `file` (capped: config_json.MAX_CONFIG_BYTES); None when absent or not an object."""
    data = read_config_json(file, object, missing_ok=True)
    return data if isinstance(data, dict) else None


# ---- the one "needs reindex" rule ------------------------------------------------------------------------
# Used by Library.check_model (stored meta vs the configured model's identity), `status` (stored meta vs the
# settings by name: no model is read) and the GUI's settings dialog (old config vs new config). What the
# vectors depend on: the model's weights, pooling, window and passage prompt (its fingerprint), the vector size, and how text
# is cut into passages. Not `chunking.title_context`: a soft setting (both kinds of vector share one space,
# new files follow it, `status` notes that a reindex would re-embed the rest: settings_check.passage_context_note).


class EncodingSettings(Protocol):
    """What library_settings reads of a model: a ModelIdentity, or the loaded BiEncoder."""

    @property
    def pooling(self) -> str: ...

    @property
    def passage_prompt(self) -> str: ...


def library_settings(config: Config, fingerprint: Optional[str] = None, dim: Optional[int] = None, *,
                     identity: Optional[EncodingSettings] = None) -> dict[str, str]:
    """What a library built under `config` records (meta keys -> values). fingerprint/dim when known;
    `identity` (the configured model read from its files, or the loaded one) adds the pooling that runs (for
    models.pooling "auto") and the passage prompt."""
    m, c = config.models, config.chunking
    out = {"model": m.bi_encoder, "pooling": m.pooling, "chunk_max_tokens": str(c.max_tokens),
           "chunk_overlap": str(c.overlap)}
    if identity is not None:  # getattr: tests hand in stand-in encoders that predate prompts
        out["pooling"] = str(getattr(identity, "pooling", m.pooling))
        out["passage_prompt"] = str(getattr(identity, "passage_prompt", ""))
    if fingerprint is not None:
        out["model_fingerprint"] = str(fingerprint)
    if dim is not None:
        out["dim"] = str(int(dim))
    return out


def _same_model(a: str, b: str) -> bool:
    if a == b:
        return True
    if os.path.isdir(a) and os.path.isdir(b):  # one folder named two ways
        return os.path.realpath(a) == os.path.realpath(b)
    return False


def reindex_reasons(built: Mapping[str, str], wanted: Mapping[str, str]) -> list[str]:
    """Why vectors built under `built` cannot serve `wanted` (both as library_settings gives them), in words;
    empty when none. A key `built` lacks is not compared (recorded before it existed), except the fingerprint
    and vector size, which a library with passages always has."""
    reasons = []
    fp_b, fp_w = built.get("model_fingerprint"), wanted.get("model_fingerprint")
    model_b, model_w = built.get("model"), wanted.get("model")
    names_differ = bool(model_b and model_w and not _same_model(model_b, model_w))
    pool_b, pool_w = built.get("pooling"), wanted.get("pooling")
    # "auto" is a setting, not a pooling: by name it matches any (the fingerprint holds the pooling that ran).
    pooling_differs = bool(pool_b and pool_w and "auto" not in (pool_b, pool_w) and pool_b != pool_w)
    # A library built before prompts existed embedded its passages with none.
    prompt_b, prompt_w = built.get("passage_prompt", ""), wanted.get("passage_prompt")
    prompt_differs = prompt_w is not None and prompt_b != prompt_w
    if fp_w is not None and fp_b is not None:
        if fp_b != fp_w:  # the weights decide; a name is only how the message says it
            if names_differ:
                reasons.append(f"model {model_b!r} (configured {model_w!r})")
            elif not pooling_differs and not prompt_differs:
                reasons.append(f"model fingerprint {fp_b} (the configured model's weights or max_seq_length give "
                               f"{fp_w})")
    elif fp_w is not None:
        reasons.append("no model fingerprint recorded")
    elif names_differ:
        reasons.append(f"model {model_b!r} (configured {model_w!r})")
    if pooling_differs:
        reasons.append(f"pooling {pool_b!r} (configured {pool_w!r})")
    if prompt_differs:
        reasons.append(f"passage prompt {describe_prompt(prompt_b)} (the configured model puts "
                       f"{describe_prompt(prompt_w or '')} in front of passages)")
    for key in ("dim", "chunk_max_tokens", "chunk_overlap"):
        b, w = built.get(key), wanted.get(key)
        if w is not None and (b != w if key == "dim" else (b and b != w)):
            reasons.append(f"{'vector size' if key == 'dim' else key} {b} (configured {w})")
    return reasons


def built_with(reasons: list[str]) -> str:
    """What the library was built with, as `reasons` say it (the start of every such message)."""
    return "the library was built with " + "; ".join(reasons)


def reindex_message(reasons: list[str]) -> Optional[str]:
    """The one-line message for `reasons`, ending in what to run; None when there are none."""
    if not reasons:
        return None
    return built_with(reasons) + ": run `searchapp reindex` to rebuild it with the current settings, or change them back"


SET_BACK = ("set [models] and [chunking] in this desktop's config back to the library's (`status` shows them)")


def shared_mismatch_message(reasons: list[str]) -> Optional[str]:
    """reindex_message for a shared library: it keeps one model and chunking for every machine's folders, so a
    reindex with this desktop's settings would be refused; the way out is this desktop's settings."""
    if not reasons:
        return None
    return built_with(reasons) + ": a shared library keeps one model and chunking for every machine: " + SET_BACK
