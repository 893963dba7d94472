"""One typed, frozen configuration tree: defaults -> TOML file -> SEARCHAPP_* environment -> explicit overrides.

Unknown keys raise ConfigError: a typo must never be silently ignored. Every field has help text
(`field_help`), which the README and `searchapp config` list.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Mapping, Optional

from .errors import ConfigError
from .paths import resolve_data_dir, user_config_file

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
]

PACKAGED_BI_ENCODER = "all-MiniLM-L6-v2"
DEFAULT_RERANKER = "cross-encoder/ms-marco-MiniLM-L-6-v2"

DEFAULT_SKIP_DIRS = (
    ".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox",
    ".mypy_cache", ".pytest_cache", "build", "dist", ".idea", ".cache",
)


def _f(default: Any, doc: str) -> Any:
    kw = {"default_factory": lambda: default} if isinstance(default, (list, dict)) else {"default": default}
    return field(metadata={"help": doc}, **kw)


@dataclass(frozen=True)
class ScanConfig:
    max_file_mb: float = _f(50.0, "Files larger than this (MB) are skipped without being read.")
    skip_dirs: tuple[str, ...] = _f(DEFAULT_SKIP_DIRS, "Directory names never descended into (hidden ones are always skipped).")
    follow_symlinks: bool = _f(True, "Follow symlinked folders and files (loops are detected and never followed twice).")
    exclude: tuple[str, ...] = _f((), "Glob patterns left out of indexed folders: with a / they match the full path (a folder covers everything under it), else each file or folder name (e.g. ~/notes/private, *.bak).")


@dataclass(frozen=True)
class ChunkConfig:
    max_tokens: int = _f(200, "Passage length in bi-encoder word pieces (MiniLM truncates at 256, specials included).")
    overlap: float = _f(0.2, "Fraction of a passage repeated at the start of the next one.")


@dataclass(frozen=True)
class ModelConfig:
    bi_encoder: str = _f(PACKAGED_BI_ENCODER, "Bi-encoder: the packaged model name, a local folder, or a Hugging Face id in the local cache.")
    pooling: str = _f("mean", "Token pooling of the bi-encoder: mean, cls, max or wk (SBERT-WK, fuses layers 4..last).")
    reranker: str = _f(DEFAULT_RERANKER, "Cross-encoder: a local folder or a Hugging Face id in the local cache; empty disables reranking.")
    device: str = _f("auto", "auto (CUDA when present, else CPU), cpu, cuda or cuda:N.")
    precision: str = _f("auto", "auto (fp16 on CUDA, bf16 on CPUs with native bf16, else fp32), fp32, bf16 or fp16.")
    batch_size: int = _f(32, "Passages per encoder batch.")
    rerank_max_length: int = _f(256, "Word pieces of query + passage the cross-encoder reads.")
    allow_download: bool = _f(False, "Allow fetching models from the Hugging Face hub (off: the app never touches the network).")
    threads: int = _f(0, "CPU threads for torch (0: torch's default).")


@dataclass(frozen=True)
class IndexConfig:
    backend: str = _f("hnsw", "Vector index: hnsw (approximate, fast) or exact (NumPy, ground truth).")
    m: int = _f(16, "HNSW graph degree M.")
    ef_construction: int = _f(200, "HNSW ef_construction.")
    ef_search: int = _f(100, "HNSW ef at query time (raised to the number of candidates when smaller).")


@dataclass(frozen=True)
class SearchConfig:
    k: int = _f(10, "Hits returned.")
    mode: str = _f("hybrid", "hybrid (dense + lexical fused), dense or lexical.")
    candidates: int = _f(50, "Candidates per retriever, fused, then reranked (rerank depth).")
    rrf_k: int = _f(60, "Reciprocal rank fusion constant.")
    rerank: bool = _f(True, "Rerank candidates with the cross-encoder when one is available.")
    group: str = _f("file", "file: each file once (its best passage, the others listed with it; k counts files); passage: every passage a row.")
    fusion: str = _f("convex", "How dense and lexical candidates are fused: convex (weighted cosine + normalised BM25) or rrf.")
    dense_weight: float = _f(0.8, "The dense side's share in fusion, 0..1 (the lexical side gets the rest).")


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
        checks = [
            (self.models.pooling in ("mean", "cls", "max", "wk"), "models.pooling must be mean, cls, max or wk"),
            (self.models.precision in ("auto", "fp32", "bf16", "fp16"), "models.precision must be auto, fp32, bf16 or fp16"),
            (self.index.backend in ("hnsw", "exact"), "index.backend must be hnsw or exact"),
            (self.search.mode in ("hybrid", "dense", "lexical"), "search.mode must be hybrid, dense or lexical"),
            (16 <= self.chunking.max_tokens <= 510, "chunking.max_tokens must be between 16 and 510"),
            (0.0 <= self.chunking.overlap < 0.9, "chunking.overlap must be in [0, 0.9)"),
            (self.search.k >= 1 and self.search.candidates >= 1, "search.k and search.candidates must be >= 1"),
            (self.search.group in ("file", "passage"), "search.group must be file or passage"),
            (self.search.fusion in ("convex", "rrf"), "search.fusion must be convex or rrf"),
            (0.0 <= self.search.dense_weight <= 1.0, "search.dense_weight must be between 0 and 1"),
            (self.scan.max_file_mb > 0, "scan.max_file_mb must be > 0"),
            (self.models.batch_size >= 1, "models.batch_size must be >= 1"),
        ]
        for ok, msg in checks:
            if not ok:
                raise ConfigError(msg)
        return self


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
        return typ(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{where}: cannot use {value!r} (expected {typ.__name__})") from None


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
                sub_changes[sk] = _coerce(sv, getattr(current, sk), f"{origin}: {key}.{sk}")
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
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(tomli_w.dumps(config_to_dict(config.validate())), encoding="utf-8")
    os.replace(tmp, target)  # a crash mid-write never leaves half a config behind
    return target
