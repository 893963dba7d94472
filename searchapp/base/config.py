"""One typed, frozen configuration tree: defaults -> TOML file -> SEARCHAPP_* environment -> explicit overrides.

Unknown keys raise ConfigError: a typo must never be silently ignored. Every field has help text
(`field_help`), which the README and `searchapp config` list.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Mapping, Optional

from .errors import ConfigError
from .paths import resolve_data_dir, user_config_file
from .private import make_private_dir, write_private_text

__all__ = [
    "ScanConfig",
    "ChunkConfig",
    "ModelConfig",
    "IndexConfig",
    "SearchConfig",
    "Config",
    "load_config",
    "field_help",
    "PACKAGED_BI_ENCODER",
    "DEFAULT_RERANKER",
    "config_to_dict",
    "save_config",
    "check_setting",
    "allowed_values",
]

PACKAGED_BI_ENCODER = "all-MiniLM-L6-v2"
DEFAULT_RERANKER = "cross-encoder/ms-marco-MiniLM-L-6-v2"

DEFAULT_SKIP_DIRS = (
    ".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox",
    ".mypy_cache", ".pytest_cache", "build", "dist", ".idea", ".cache",
)


def _f(default: Any, doc: str, *, min: Any = None, max: Any = None, choices: Optional[tuple] = None) -> Any:
    """A field with its help text and the values it allows (`min`/`max` inclusive, or `choices`): the
    loader checks them (`Config.validate`) and the README lists them, from this one place."""
    kw = {"default_factory": lambda: default} if isinstance(default, (list, dict)) else {"default": default}
    meta = {"help": doc}
    if min is not None:
        meta["min"] = min
    if max is not None:
        meta["max"] = max
    if choices is not None:
        meta["choices"] = choices
    return field(metadata=meta, **kw)


@dataclass(frozen=True)
class ScanConfig:
    max_file_mb: float = _f(50.0, "Files larger than this (MB) are skipped without being read.", min=0.001, max=1_000_000)
    max_text_chars: int = _f(10_000_000, "Characters of extracted text kept per file (after decompression); the rest is cut and reported as truncated.",
                             min=1000, max=2_000_000_000)
    skip_dirs: tuple[str, ...] = _f(DEFAULT_SKIP_DIRS, "Directory names never descended into (hidden ones are always skipped).")
    follow_symlinks: bool = _f(True, "Follow symlinked folders and files inside the indexed folder (loops are never walked).")
    follow_symlinks_out: bool = _f(False, "Also follow symlinks that lead out of the indexed folder (off: they are skipped with a reason).")
    exclude: tuple[str, ...] = _f((), "Glob patterns left out of indexed folders: with a / they match the full path (a folder covers everything under it), else each file or folder name (e.g. ~/notes/private, *.bak).")


@dataclass(frozen=True)
class ChunkConfig:
    max_tokens: int = _f(200, "Passage length in bi-encoder word pieces (MiniLM truncates at 256, specials included).", min=16, max=510)
    overlap: float = _f(0.2, "Fraction of a passage repeated at the start of the next one.", min=0.0, max=0.89)
    title_context: bool = _f(True, "Embed each passage with its file's own title in front (HTML <title>, first heading, document metadata); the stored text and the lexical index are unchanged.")


@dataclass(frozen=True)
class ModelConfig:
    bi_encoder: str = _f(PACKAGED_BI_ENCODER, "Bi-encoder: the packaged model name, a local folder, or a Hugging Face id in the local cache.")
    pooling: str = _f("mean", "Token pooling of the bi-encoder: mean, cls, max or wk (SBERT-WK, fuses layers 4..last).",
                       choices=("mean", "cls", "max", "wk"))
    reranker: str = _f(DEFAULT_RERANKER, "Cross-encoder: a local folder or a Hugging Face id in the local cache; empty disables reranking.")
    device: str = _f("auto", "auto (CUDA when present, else CPU), cpu, cuda or cuda:N.")
    precision: str = _f("auto", "auto (fp16 on CUDA, bf16 on CPUs with native bf16, else fp32), fp32, bf16 or fp16.",
                         choices=("auto", "fp32", "bf16", "fp16"))
    batch_size: int = _f(32, "Passages per encoder batch.", min=1, max=4096)
    rerank_max_length: int = _f(256, "Word pieces of query + passage the cross-encoder reads.", min=8, max=8192)
    allow_download: bool = _f(False, "Allow fetching models from the Hugging Face hub (off: the app never touches the network).")
    threads: int = _f(0, "CPU threads for torch (0: torch's default).", min=0, max=1024)


@dataclass(frozen=True)
class IndexConfig:
    backend: str = _f("hnsw", "Vector index: hnsw (approximate, fast) or exact (NumPy, ground truth).", choices=("hnsw", "exact"))
    m: int = _f(16, "HNSW graph degree M.", min=2, max=128)
    ef_construction: int = _f(200, "HNSW ef_construction.", min=1, max=10_000)
    ef_search: int = _f(100, "HNSW ef at query time (raised to the number of candidates when smaller).", min=1, max=10_000)


@dataclass(frozen=True)
class SearchConfig:
    k: int = _f(10, "Hits returned.", min=1, max=10_000)
    mode: str = _f("hybrid", "hybrid (dense + lexical fused), dense or lexical.", choices=("hybrid", "dense", "lexical"))
    candidates: int = _f(50, "Candidates per retriever, fused, then reranked (rerank depth).", min=1, max=10_000)
    rrf_k: int = _f(60, "Reciprocal rank fusion constant.", min=1, max=100_000)
    rerank: bool = _f(True, "Rerank candidates with the cross-encoder when one is available.")
    group: str = _f("file", "file: each file once (its best passage, the others listed with it; k counts files); passage: every passage a row.",
                    choices=("file", "passage"))
    fusion: str = _f("convex", "How dense and lexical candidates are fused: convex (weighted cosine + normalised BM25) or rrf.",
                     choices=("convex", "rrf"))
    dense_weight: float = _f(0.8, "The dense side's share in fusion, 0..1 (the lexical side gets the rest).",
                           min=0.0, max=1.0)


@dataclass(frozen=True)
class Config:
    data_dir: Path = _f(Path("."), "Where the library (SQLite, vector index, config.toml) lives.")
    scan: ScanConfig = _f(ScanConfig(), "Scanning.")
    chunking: ChunkConfig = _f(ChunkConfig(), "Chunking.")
    models: ModelConfig = _f(ModelConfig(), "Models.")
    index: IndexConfig = _f(IndexConfig(), "Vector index.")
    search: SearchConfig = _f(SearchConfig(), "Search.")

    def replace(self, **sections: Mapping[str, Any]) -> "Config":
        """Return a copy with some fields of some sections changed: cfg.replace(search={"k": 5})."""
        return _merge(self, {k: dict(v) for k, v in sections.items()}, "override")

    def validate(self) -> "Config":
        """Every field against its type and its allowed values (field metadata); ConfigError names the key."""
        for top in fields(self):
            section = getattr(self, top.name)
            if not dataclasses.is_dataclass(section):
                continue
            for f in fields(section):
                check_setting(f"{top.name}.{f.name}", getattr(section, f.name))
        if self.models.device not in ("auto", "cpu", "cuda") and not re.fullmatch(r"cuda:\d{1,3}", self.models.device):
            raise ConfigError(f"models.device: {self.models.device!r} is not allowed (auto, cpu, cuda or cuda:N)")
        return self


def allowed_values(key: str) -> Optional[str]:
    """The allowed values of `section.key` in words ("between 1 and 1000", "mean, cls, max or wk"), or None."""
    meta = _field_meta().get(key, {})
    if "choices" in meta:
        c = [str(x) for x in meta["choices"]]
        return ", ".join(c[:-1]) + " or " + c[-1] if len(c) > 1 else c[0]
    if "min" in meta and "max" in meta:
        return f"between {_num(meta['min'])} and {_num(meta['max'])}"
    if "min" in meta:
        return f"at least {_num(meta['min'])}"
    return None


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def check_setting(key: str, value: Any) -> Any:
    """Raise ConfigError (exit 2) unless `value` is allowed for `section.key`; returns it. The CLI and the
    library use this for per-call values too (e.g. --k), so every route in obeys the same ranges."""
    meta = _field_meta().get(key)
    if meta is None:
        return value
    allowed = allowed_values(key)
    bad = False
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        bad = ("min" in meta or "max" in meta) or ("choices" in meta and value not in meta["choices"])
    else:
        bad = (not math.isfinite(value) or ("min" in meta and value < meta["min"])
               or ("max" in meta and value > meta["max"]))
    if bad:
        raise ConfigError(f"{key}: {value!r} is not allowed ({allowed})")
    return value


def _field_meta() -> dict[str, Mapping[str, Any]]:
    out: dict[str, Mapping[str, Any]] = {}
    for top in fields(Config):
        section = top.default_factory() if top.default is dataclasses.MISSING else top.default
        if dataclasses.is_dataclass(section):
            for f in fields(section):
                out[f"{top.name}.{f.name}"] = f.metadata
    return out


def field_help() -> dict[str, str]:
    """`section.key` -> help text for every configurable field."""
    out: dict[str, str] = {}
    for top in fields(Config):
        if dataclasses.is_dataclass(top.default_factory() if top.default is dataclasses.MISSING else top.default):
            section = top.default_factory() if top.default is dataclasses.MISSING else top.default
            for f in fields(section):
                out[f"{top.name}.{f.name}"] = f.metadata.get("help", "")
        else:
            out[top.name] = top.metadata.get("help", "")
    return out


def _coerce(value: Any, current: Any, where: str) -> Any:
    """Convert TOML/env values to the type of the current value; strings from env are parsed."""
    typ = type(current)
    try:
        if isinstance(current, bool):
            if isinstance(value, str):
                low = value.strip().lower()
                if low in ("1", "true", "yes", "on"):
                    return True
                if low in ("0", "false", "no", "off"):
                    return False
                raise ValueError(value)
            if isinstance(value, bool):
                return value
            raise ValueError(value)
        if isinstance(current, tuple):
            if isinstance(value, str):
                return tuple(s.strip() for s in value.split(",") if s.strip())
            return tuple(str(v) for v in value)
        if isinstance(current, Path):
            return Path(value).expanduser()
        if isinstance(current, (int, float)) and isinstance(value, bool):
            raise ValueError(value)
        if isinstance(current, int):
            # 1.9 must not silently become 1; 10.0 is fine. Strings (environment) parse as whole numbers.
            if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
                raise ValueError(value)
            return int(value) if not isinstance(value, str) else int(value.strip())
        if isinstance(current, float):
            out = float(value)
            if not math.isfinite(out):
                raise ValueError(value)
            return out
        return typ(value)
    except (TypeError, ValueError, OverflowError):
        key = where.rpartition(": ")[2]
        allowed = allowed_values(key)
        kind = {"int": "a whole number", "float": "a finite number", "bool": "true or false"}.get(typ.__name__, typ.__name__)
        raise ConfigError(f"{where}: cannot use {value!r} (expected {kind}"
                          + (f" {allowed}" if allowed and allowed.startswith(("between", "at least")) else "") + ")") from None


def _merge(cfg: Config, data: Mapping[str, Any], origin: str) -> Config:
    changes: dict[str, Any] = {}
    known = {f.name for f in fields(Config)}
    for key, value in data.items():
        if key not in known:
            raise ConfigError(f"{origin}: unknown setting {key!r} (known: {', '.join(sorted(known))})")
        current = getattr(cfg, key)
        if dataclasses.is_dataclass(current):
            if not isinstance(value, Mapping):
                raise ConfigError(f"{origin}: [{key}] must be a table")
            sub_known = {f.name for f in fields(current)}
            sub_changes = {}
            for sk, sv in value.items():
                if sk not in sub_known:
                    raise ConfigError(f"{origin}: unknown setting {key}.{sk} (known: {', '.join(sorted(sub_known))})")
                value_ = _coerce(sv, getattr(current, sk), f"{origin}: {key}.{sk}")
                try:
                    sub_changes[sk] = check_setting(f"{key}.{sk}", value_)
                except ConfigError as exc:  # say where the bad value came from
                    raise ConfigError(f"{origin}: {exc}") from None
            changes[key] = dataclasses.replace(current, **sub_changes)
        else:
            changes[key] = _coerce(value, current, f"{origin}: {key}")
    return dataclasses.replace(cfg, **changes)


def _env_overrides(env: Mapping[str, str]) -> dict[str, dict[str, str]]:
    """SEARCHAPP_SEARCH__K=5 -> {"search": {"k": "5"}}. SEARCHAPP_DATA_DIR is handled by paths."""
    out: dict[str, dict[str, str]] = {}
    for name, value in env.items():
        if not name.startswith("SEARCHAPP_") or "__" not in name:
            continue
        section, _, key = name[len("SEARCHAPP_"):].lower().partition("__")
        out.setdefault(section, {})[key] = value
    return out


def load_config(
    data_dir: Optional[str | Path] = None,
    config_file: Optional[str | Path] = None,
    env: Mapping[str, str] = os.environ,
    overrides: Optional[Mapping[str, Mapping[str, Any]]] = None,
) -> Config:
    root = resolve_data_dir(data_dir, env)
    cfg = Config(data_dir=root)
    path = Path(config_file) if config_file else user_config_file(root)
    if path.is_file():
        try:
            with open(path, "rb") as fh:
                data = tomllib.load(fh)
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"{path}: {exc}") from None
        data.pop("data_dir", None)  # the data dir is chosen before the file is found
        cfg = _merge(cfg, data, str(path))
    cfg = _merge(cfg, _env_overrides(env), "environment")
    if overrides:
        cfg = _merge(cfg, overrides, "override")
    return cfg.validate()


def config_to_dict(config: Config, *, only_changed: bool = True) -> dict[str, dict[str, Any]]:
    """The TOML tables of `config` (without data_dir); by default only values that differ from the defaults."""
    default = Config(data_dir=config.data_dir)
    out: dict[str, dict[str, Any]] = {}
    for top in fields(Config):
        section = getattr(config, top.name)
        if not dataclasses.is_dataclass(section):
            continue
        base = getattr(default, top.name)
        table = {f.name: getattr(section, f.name) for f in fields(section)
                 if not only_changed or getattr(section, f.name) != getattr(base, f.name)}
        table = {k: list(v) if isinstance(v, tuple) else v for k, v in table.items()}
        if table:
            out[top.name] = table
    return out


def save_config(config: Config, path: Optional[str | Path] = None) -> Path:
    """Write the non-default settings of `config` as TOML (default: the data dir's config.toml), atomically."""
    import tomli_w

    target = Path(path) if path else user_config_file(Path(config.data_dir))
    make_private_dir(target.parent)
    tmp = target.with_name(target.name + ".tmp")
    write_private_text(tmp, tomli_w.dumps(config_to_dict(config.validate())))  # 0600 whatever the umask
    os.replace(tmp, target)  # a crash mid-write never leaves half a config behind
    return target
