"""The chunker's tokenizer read straight from a model folder's tokenizer.json: no torch, no transformers.

A sync's words pass only needs word-piece offsets, and loading the bi-encoder to get them costs seconds and
hundreds of MB (torch, transformers, the weights). transformers does not always use tokenizer.json as it is:
a BERT tokenizer takes do_lower_case / strip_accents / tokenize_chinese_chars from tokenizer_config.json over
the file's normalizer, and adds the special and added tokens the config names. So the file is used alone only
where those settings agree with it and it is a plain BERT tokenizer (the family whose alterations are known);
anything else returns None and the caller chunks with the loaded bi-encoder, as before. ModelSet checks, when
the bi-encoder does load, that its chunking tokenizer equals this one (tests/unit/models/test_tokenizer_file.py
compares them on the packaged model and on altered configs).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from ..base.safe_open import open_regular
from .chunking_tokenizer import ChunkingTokenizer
from .resolve import check_no_custom_code

if TYPE_CHECKING:
    from tokenizers import Tokenizer

__all__ = ["chunker_from_files", "same_chunking"]

log = logging.getLogger(__name__)

_MAX_JSON = 64 << 20  # tokenizer.json of a large vocabulary is a few MB; past this it is not a tokenizer
_BERT_CLASSES = ("BertTokenizer", "BertTokenizerFast")
# tokenizer_config.json's BERT flags, transformers' defaults, and the BertNormalizer field each one sets
_BERT_FLAGS = (("do_lower_case", True, "lowercase"), ("strip_accents", None, "strip_accents"),
               ("tokenize_chinese_chars", True, "handle_chinese_chars"))
_ADDED_FIELDS = ("lstrip", "rstrip", "normalized", "single_word", "special")
_SPECIAL_KEYS = ("unk_token", "sep_token", "pad_token", "cls_token", "mask_token", "bos_token", "eos_token")


def chunker_from_files(path: Path, max_seq_length: int) -> Optional[ChunkingTokenizer]:
    """The chunking tokenizer of the model folder `path` from its tokenizer.json alone, or None when
    transformers might build a different one from these files (the caller then loads the model)."""
    try:
        check_no_custom_code(path)
        text = _read(path / "tokenizer.json")
        if text is None:
            return None
        tok_cfg = json.loads(_read(path / "tokenizer_config.json") or "{}")
        special_map = json.loads(_read(path / "special_tokens_map.json") or "{}")
        model_cfg = json.loads(_read(path / "config.json") or "{}")
        chunker = ChunkingTokenizer(text, int(max_seq_length))
        why = _differs(chunker.backend, tok_cfg, special_map, model_cfg)
        if why:
            log.debug("%s: chunking with the loaded model (%s)", path, why)
            return None
        return chunker
    except Exception as exc:  # ModelLoadError, OSError, a malformed JSON or tokenizer
        # Any doubt (a broken file, a tokenizer the library refuses): the bi-encoder's load decides and says why.
        log.debug("%s: tokenizer.json not used alone: %s", path, exc)
        return None


def same_chunking(a: ChunkingTokenizer, b: ChunkingTokenizer) -> bool:
    """Whether two chunking tokenizers cut text the same way (same tokenizer, window and words rule)."""
    ja, la, wa = a.chunking_spec()
    jb, lb, wb = b.chunking_spec()
    return (la, wa) == (lb, wb) and json.loads(ja) == json.loads(jb)


def _read(file: Path) -> Optional[str]:
    if not file.is_file():
        return None
    with open_regular(file) as fh:
        data = fh.read(_MAX_JSON + 1)
    if len(data) > _MAX_JSON:
        raise ValueError(f"{file} is over {_MAX_JSON >> 20} MB")
    return data.decode("utf-8")


def _differs(tok: "Tokenizer", tok_cfg: dict, special_map: dict, model_cfg: dict) -> Optional[str]:
    """Why transformers could build another tokenizer than tokenizer.json (`tok`) alone, or None. Read from the
    built tokenizer, not the JSON: parsing the file a second time costs as much as building it."""
    cls = tok_cfg.get("tokenizer_class") or ("BertTokenizer" if model_cfg.get("model_type") == "bert" else None)
    if cls not in _BERT_CLASSES:
        return f"tokenizer class {cls!r} is not a plain BERT tokenizer"
    if ("add_prefix_space" in tok_cfg or "trim_offsets" in tok_cfg or tok_cfg.get("do_basic_tokenize") is False
            or tok_cfg.get("never_split")):
        return "tokenizer_config.json changes pre-tokenizing"
    norm = tok.normalizer
    if type(norm).__name__ != "BertNormalizer":
        return f"normalizer {type(norm).__name__}"
    for key, default, field in _BERT_FLAGS:
        if tok_cfg.get(key, default) != getattr(norm, field):
            return f"{key} in tokenizer_config.json differs from tokenizer.json"
    added = {t.content: t for t in tok.get_added_tokens_decoder().values()}
    for entry in (tok_cfg.get("added_tokens_decoder") or {}).values():
        mine = added.get(entry.get("content"))
        if mine is None or any(getattr(mine, k) != v for k, v in entry.items() if k in _ADDED_FIELDS):
            return f"added token {entry.get('content')!r} not in tokenizer.json as configured"
    for name in _special_names(tok_cfg) | _special_names(special_map):
        if name not in added:
            return f"special token {name!r} not in tokenizer.json"
    return None


def _special_names(cfg: dict) -> set[str]:
    names: set[str] = set()
    values: list[Any] = [cfg.get(k) for k in _SPECIAL_KEYS]
    values += list(cfg.get("additional_special_tokens") or []) + list(cfg.get("extra_special_tokens") or [])
    for v in values:
        v = v.get("content") if isinstance(v, dict) else v
        if isinstance(v, str) and v:
            names.add(v)
    return names
