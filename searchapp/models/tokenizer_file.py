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
from typing import TYPE_CHECKING, Any, Optional, Sequence

from ..base.safe_open import open_regular, read_at_most
from .chunking_tokenizer import ChunkingTokenizer
from .resolve import check_no_custom_code
from .shared_tokenizers import file_settings, shared_tokenizer, truncating

if TYPE_CHECKING:
    from tokenizers import Tokenizer

__all__ = ["chunker_from_files", "same_chunking", "FileTokenizer"]

log = logging.getLogger(__name__)

_MAX_JSON = 64 << 20  # tokenizer.json of a large vocabulary is a few MB; past this it is not a tokenizer
_BERT_CLASSES = ("BertTokenizer", "BertTokenizerFast")
# tokenizer_config.json's BERT flags, transformers' defaults, and the BertNormalizer field each one sets
_BERT_FLAGS = (("do_lower_case", True, "lowercase"), ("strip_accents", None, "strip_accents"),
               ("tokenize_chinese_chars", True, "handle_chinese_chars"))
_ADDED_FIELDS = ("lstrip", "rstrip", "normalized", "single_word", "special")
_SPECIAL_KEYS = ("unk_token", "sep_token", "pad_token", "cls_token", "mask_token", "bos_token", "eos_token")
_NO_LIMIT = int(1e30)  # transformers' model_max_length when tokenizer_config.json names none (VERY_LARGE_INTEGER)


def chunker_from_files(path: Path, max_seq_length: int) -> Optional[ChunkingTokenizer]:
    """The chunking tokenizer of the model folder `path` from its tokenizer.json alone, or None when
    transformers might build a different one from these files (the caller then loads the model)."""
    try:
        files = _folder_files(path)
        if files is None:
            return None
        text, tok_cfg, special_map, model_cfg = files
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


class FileTokenizer:
    """What the encoders call of transformers' fast BERT tokenizer, over tokenizer.json alone: `__call__` (texts
    or pairs; no padding; truncation to max_length by transformers' strategies), num_special_tokens_to_add,
    pad_token(_id), pad_token_type_id, padding_side, truncation_side, model_max_length, model_input_names,
    backend_tokenizer. `from_files` builds it only where `_differs` finds nothing transformers would change, as
    for the chunker; tests/unit/models/test_plain_bert.py compares its output with AutoTokenizer's. Its Rust
    tokenizers are shared ones, never changed (shared_tokenizers.py): each truncation is a tokenizer of its own,
    so a call changes no setting another thread's call reads."""

    is_fast = True
    model_input_names = ("input_ids", "token_type_ids", "attention_mask")

    def __init__(self, backend: "Tokenizer", *, pad_token: str, model_max_length: int, padding_side: str,
                 truncation_side: str, pad_token_type_id: int = 0) -> None:
        self.backend_tokenizer = backend  # truncation and padding off (shared_tokenizer's)
        self.pad_token = pad_token
        self.pad_token_type_id = pad_token_type_id
        pad_id = backend.token_to_id(pad_token)
        if pad_id is None:
            raise ValueError(f"no padding token {pad_token!r} in tokenizer.json")
        self.pad_token_id = int(pad_id)
        self.model_max_length = model_max_length
        self.padding_side = padding_side
        self.truncation_side = truncation_side
        # (max_length, strategy, side) -> a copy truncating so
        self._truncating: dict[tuple[int, str, str], "Tokenizer"] = {}

    @classmethod
    def from_files(cls, path: Path) -> Optional["FileTokenizer"]:
        """The tokenizer of the model folder `path`, or None when transformers might build another one."""
        try:
            files = _folder_files(path)
            if files is None:
                return None
            text, tok_cfg, special_map, model_cfg = files
            backend = shared_tokenizer(text)
            # The file's own truncation and padding are transformers' defaults for the sides and the padding
            # token (TokenizersBackend); the calls then set truncation themselves and never pad.
            trunc, padding = file_settings(text)
            if _differs(backend, tok_cfg, special_map, model_cfg):
                return None
            pad = _special(tok_cfg, special_map, "pad_token", padding.get("pad_token") or "[PAD]")
            limit = tok_cfg.get("model_max_length")
            sides = [str(tok_cfg.get(k) or default.get("direction") or "right").lower()
                     for k, default in (("padding_side", padding), ("truncation_side", trunc))]
            if not pad or backend.token_to_id(pad) is None or not {*sides} <= {"left", "right"}:
                return None
            return cls(backend, pad_token=pad, padding_side=sides[0], truncation_side=sides[1],
                       pad_token_type_id=int(padding.get("pad_type_id") or 0),
                       model_max_length=limit if type(limit) is int and limit > 0 else _NO_LIMIT)
        except Exception as exc:  # any doubt: transformers loads it and says why
            log.debug("%s: tokenizer.json not used alone: %s", path, exc)
            return None

    def copy(self) -> "FileTokenizer":
        """Another tokenizer like this one, for another thread, without reading and checking the folder again:
        the Rust tokenizers are shared (never changed); its own are the sides a caller may set."""
        return FileTokenizer(self.backend_tokenizer, pad_token=self.pad_token,
                             model_max_length=self.model_max_length, padding_side=self.padding_side,
                             truncation_side=self.truncation_side, pad_token_type_id=self.pad_token_type_id)

    def __call__(self, texts: Any, pairs: Optional[Sequence[str]] = None, *, truncation: Any = False,
                 max_length: Optional[int] = None, padding: bool = False,
                 add_special_tokens: bool = True) -> dict[str, list[Any]]:
        """input_ids / token_type_ids / attention_mask of `texts` (a list: one row each; a string: one row), or of
        the pairs (texts[i], pairs[i]). `truncation`: True ("longest_first"), or a strategy by its name."""
        if padding:
            raise ValueError("FileTokenizer does not pad: the caller collates")
        single = isinstance(texts, str)
        tok = self.backend_tokenizer
        limit = max_length or (self.model_max_length if self.model_max_length < _NO_LIMIT else None)
        if truncation and truncation != "do_not_truncate" and limit:  # transformers' names; no length: the model's
            strategy = "longest_first" if truncation is True else str(truncation)
            tok = self._truncating_to(limit, strategy)
        inputs: list[Any] = [texts] if single else list(texts)
        if pairs is not None:
            inputs = list(zip(inputs, pairs, strict=True))
        encs = tok.encode_batch(inputs, add_special_tokens=add_special_tokens)
        cols = {"input_ids": [e.ids for e in encs], "token_type_ids": [e.type_ids for e in encs],
                "attention_mask": [e.attention_mask for e in encs]}
        return {k: v[0] for k, v in cols.items()} if single else cols

    def num_special_tokens_to_add(self, pair: bool = False) -> int:
        post = self.backend_tokenizer.post_processor
        return int(post.num_special_tokens_to_add(pair)) if post is not None else 0

    def _truncating_to(self, max_length: int, strategy: str) -> "Tokenizer":
        key = (max_length, strategy, self.truncation_side)  # the side may be set later, as transformers' may
        tok = self._truncating.get(key)
        if tok is None:
            tok = truncating(self.backend_tokenizer, max_length, strategy, self.truncation_side)
            self._truncating[key] = tok
        return tok


def _content(token: Any) -> Optional[str]:
    value = token.get("content") if isinstance(token, dict) else token
    return value if isinstance(value, str) and value else None


def _folder_files(path: Path) -> Optional[tuple[str, dict[str, Any], dict[str, Any], dict[str, Any]]]:
    """(tokenizer.json's text, tokenizer_config.json, special_tokens_map.json, config.json) of a model folder that
    needs no code of its own, or None when it has no tokenizer.json. Raises on a file it cannot read."""
    check_no_custom_code(path)
    text = _read(path / "tokenizer.json")
    if text is None:
        return None
    configs = [json.loads(_read(path / name) or "{}")
               for name in ("tokenizer_config.json", "special_tokens_map.json", "config.json")]
    return text, configs[0], configs[1], configs[2]


def same_chunking(a: ChunkingTokenizer, b: ChunkingTokenizer) -> bool:
    """Whether two chunking tokenizers cut text the same way (same tokenizer, window and words rule)."""
    ja, la, wa = a.chunking_spec()
    jb, lb, wb = b.chunking_spec()
    return (la, wa) == (lb, wb) and json.loads(ja) == json.loads(jb)


def _read(file: Path) -> Optional[str]:
    if not file.is_file():
        return None
    with open_regular(file) as fh:
        data = read_at_most(fh, _MAX_JSON + 1)
    if len(data) > _MAX_JSON:
        raise ValueError(f"{file} is over {_MAX_JSON >> 20} MB")
    return data.decode("utf-8")


def _differs(tok: "Tokenizer", tok_cfg: dict[str, Any], special_map: dict[str, Any],
             model_cfg: dict[str, Any]) -> Optional[str]:
    """Why transformers could build another tokenizer than tokenizer.json (`tok`, truncation and padding off) alone,
    or None. transformers 4 uses the file as it is; transformers 5's BertTokenizer keeps only its vocabulary and
    builds the rest from tokenizer_config.json (BertNormalizer, BertPreTokenizer, WordPiece with "##" and 100
    characters a word, [CLS] $A [SEP] $B:1 [SEP]:1, the configured added tokens): the file is used alone only
    where both would give what it gives. Read from the built tokenizer, not the JSON: parsing the file a second
    time costs as much as building it."""
    cls = tok_cfg.get("tokenizer_class") or ("BertTokenizer" if model_cfg.get("model_type") == "bert" else None)
    if cls not in _BERT_CLASSES:
        return f"tokenizer class {cls!r} is not a plain BERT tokenizer"
    if ("add_prefix_space" in tok_cfg or "trim_offsets" in tok_cfg or tok_cfg.get("do_basic_tokenize") is False
            or tok_cfg.get("never_split")):
        return "tokenizer_config.json changes pre-tokenizing"
    if tok_cfg.get("model_input_names") not in (None, list(FileTokenizer.model_input_names)):
        return "tokenizer_config.json names other model inputs"
    norm = tok.normalizer
    if type(norm).__name__ != "BertNormalizer" or not norm.clean_text:
        return f"normalizer {type(norm).__name__} is not BERT's, cleaning text"
    for key, default, field in _BERT_FLAGS:
        if tok_cfg.get(key, default) != getattr(norm, field):
            return f"{key} in tokenizer_config.json differs from tokenizer.json"
    return _pieces_differ(tok, tok_cfg, special_map) or _added_differ(tok, tok_cfg, special_map)


def _pieces_differ(tok: "Tokenizer", tok_cfg: dict[str, Any], special_map: dict[str, Any]) -> Optional[str]:
    """The pre-tokenizer, the WordPiece model and the special tokens around one text or a pair, as BERT's."""
    model = tok.model
    if type(tok.pre_tokenizer).__name__ != "BertPreTokenizer" or type(model).__name__ != "WordPiece":
        return "not BERT's pre-tokenizer and WordPiece"
    if (model.unk_token != _special(tok_cfg, special_map, "unk_token", "[UNK]")
            or model.continuing_subword_prefix != "##" or model.max_input_chars_per_word != 100):
        return "WordPiece's unknown token, prefix or word limit is not the configured one"
    names = [_special(tok_cfg, special_map, k, d) for k, d in (("cls_token", "[CLS]"), ("sep_token", "[SEP]"))]
    ids = [tok.token_to_id(n) if n else None for n in names]
    a, b = (tok.encode(t, add_special_tokens=False).ids for t in ("probe text", "its pair"))
    one, two = tok.encode("probe text"), tok.encode("probe text", "its pair")
    cls_id, sep_id = ids
    if cls_id is None or sep_id is None:
        return "no [CLS] or [SEP] token"
    if (one.ids != [cls_id, *a, sep_id] or any(one.type_ids) or two.ids != [cls_id, *a, sep_id, *b, sep_id]
            or two.type_ids != [0] * (len(a) + 2) + [1] * (len(b) + 1)):
        return "the post-processor is not [CLS] A [SEP] B [SEP]"
    return None


def _added_differ(tok: "Tokenizer", tok_cfg: dict[str, Any], special_map: dict[str, Any]) -> Optional[str]:
    """The added tokens: where tokenizer_config.json lists them, transformers 5 takes that list alone, so the file's
    must be the same, flags and all; the special tokens named anywhere must be among them."""
    added = {t.content: t for t in tok.get_added_tokens_decoder().values()}
    configured = (tok_cfg.get("added_tokens_decoder") or {}).values()
    for entry in configured:
        mine = added.get(entry.get("content"))
        if mine is None or any(getattr(mine, k) != v for k, v in entry.items() if k in _ADDED_FIELDS):
            return f"added token {entry.get('content')!r} not in tokenizer.json as configured"
    if configured and set(added) != {e.get("content") for e in configured}:
        return "tokenizer.json adds tokens tokenizer_config.json does not list"
    for name in _special_names(tok_cfg) | _special_names(special_map):
        if name not in added:
            return f"special token {name!r} not in tokenizer.json"
    return None


def _special(tok_cfg: dict[str, Any], special_map: dict[str, Any], key: str, default: str) -> Optional[str]:
    return _content(tok_cfg.get(key) or special_map.get(key) or default)


def _special_names(cfg: dict[str, Any]) -> set[str]:
    names: set[str] = set()
    values: list[Any] = [cfg.get(k) for k in _SPECIAL_KEYS]
    values += list(cfg.get("additional_special_tokens") or []) + list(cfg.get("extra_special_tokens") or [])
    for v in values:
        name = _content(v)
        if name:
            names.add(name)
    return names
