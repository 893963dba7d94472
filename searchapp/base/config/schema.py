"""The configuration tree: frozen dataclasses, each field with its default, help text and allowed values.

Every field has help text (`field_help`), which the README and `searchapp config` list; its `min`/`max`
or `choices` are checked by checks.py and shown in the README from this one place.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Mapping, Optional

from ..errors import ConfigError
from ..search_modes import SEARCH_MODES
from .checks import check_device, check_names, check_value, describe_allowed, merge_checked

__all__ = [
    "ScanConfig",
    "ChunkConfig",
    "ModelConfig",
    "IndexConfig",
    "SearchConfig",
    "LibraryConfig",
    "Config",
    "field_help",
    "field_meta",
    "setting_range",
    "PACKAGED_BI_ENCODER",
    "DEFAULT_RERANKER",
    "check_setting",
    "allowed_values",
]

PACKAGED_BI_ENCODER = "all-MiniLM-L6-v2"
DEFAULT_RERANKER = "cross-encoder/ms-marco-MiniLM-L-6-v2"

DEFAULT_SKIP_DIRS = (
    ".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox",
    ".mypy_cache", ".pytest_cache", "build", "dist", ".idea", ".cache",
)
# Emacs' backup (file~, also vim's with `set backup`) and autosave (#file#) copies: a newcomer found last week's
# text of a file in them, ranked beside the file itself. Their lock files (.#file) are hidden, so left out anyway.
DEFAULT_EXCLUDE = ("*~", "#*#")
# Names of files that hold secrets (decision 0177): left out of every indexed folder, archive and mail, counted as
# "excluded: secret". What grants access by name alone: private keys, key stores, programs' credential files,
# password databases and their exports, wallets, encrypted files. A key's text is refused whatever its name
# (ingest/secrets.py), so `*.key` (also Keynote's decks) and `*.asc` (also signatures) are not named here.
DEFAULT_SECRET_FILES = (
    "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk", "*.ppk",
    "*.pem", "*.p12", "*.pfx", "*.jks", "*.keystore",
    ".env", ".env.*", ".netrc", "_netrc", ".pgpass", ".git-credentials", ".npmrc", ".pypirc", ".htpasswd", ".my.cnf",
    "credentials", "credentials.*", "*_accesskeys.csv",
    "*.kdbx", "*.kdb", "*.psafe3", "*.1pif", "*.1pux", "bitwarden_export_*", "*passwords.csv", "logins.csv",
    "wallet.dat", "*.gpg",
)
# Package managers' lockfiles (decision 0178): a line of name, version, address and checksum per dependency, rewritten
# by every install: thousands of passages no one searches for. What a project depends on is in the manifest beside
# each (package.json, Cargo.toml, pyproject.toml), which is read.
DEFAULT_LOCKFILES = (
    "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lockb", "poetry.lock",
    "Pipfile.lock", "uv.lock", "pdm.lock", "Cargo.lock", "Gemfile.lock", "composer.lock", "go.sum", "mix.lock",
    "pubspec.lock", "Podfile.lock", "packages.lock.json", "flake.lock",
)


def _f(default: Any, doc: str, *, min: Any = None, max: Any = None, choices: Optional[tuple[Any, ...]] = None) -> Any:
    """A field with its help text and the values it allows (`min`/`max` inclusive, or `choices`): the
    loader checks them (`Config.validate`) and the README lists them, from this one place."""
    kw = {"default_factory": lambda: default} if isinstance(default, (list, dict)) else {"default": default}
    meta: dict[str, Any] = {"help": doc}
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
    max_text_chars: int = _f(10_000_000, "Characters of extracted text kept per file (after decompression); the rest is cut and reported as truncated (by the sync, `explain`, and `status`, which lists the files cut).",
                             min=1000, max=2_000_000_000)
    file_budget_s: float = _f(30.0, "Seconds one file may take to be read; past it the file is listed as \"took too long\" and the sync goes on (the next sync tries it again).",
                              min=0.1, max=86_400)
    skip_dirs: tuple[str, ...] = _f(DEFAULT_SKIP_DIRS, "Directory names never descended into (hidden ones are always skipped).")
    follow_symlinks: bool = _f(True, "Follow symlinked folders and files inside the indexed folder (loops, and links to what an indexed folder holds at its own path, are never walked).")
    follow_symlinks_out: bool = _f(False, "Also follow symlinks that lead out of the indexed folder (off: they are skipped with a reason).")
    exclude: tuple[str, ...] = _f(DEFAULT_EXCLUDE, "Glob patterns left out of indexed folders: with a / they match the full path (a folder covers everything under it), else each file or folder name (e.g. ~/notes/private, *.bak). The default leaves out editors' backup and autosave copies (file~, #file#), whose old text would be found beside the file's own.")
    secret_files: tuple[str, ...] = _f(DEFAULT_SECRET_FILES, "File names never read, whatever their case: private keys, key stores, credential files, password databases and exports (e.g. id_rsa, *.pem, .env, credentials.json, *.kdbx). Each is listed as excluded (\"secret\"); a file whose text holds a private key, an access token of a known shape (GitHub, AWS, Slack, GitLab, Google, Stripe, OpenAI, Anthropic, Hugging Face, npm, PyPI, SendGrid, Twilio, a live JWT), a password written out in a config file (also JSON), a shell history or script, or begins as a list of passwords is excluded too, whatever its name. Names only: a pattern with a / is refused. A connection string's password (postgres://user:pass@host, Server=…;Password=…) is hidden, the file kept.")
    lockfiles: tuple[str, ...] = _f(DEFAULT_LOCKFILES, "Lockfiles' names, never read, whatever their case: the versions and checksums a package manager pinned (package-lock.json, yarn.lock, poetry.lock, Cargo.lock, go.sum, ...). Each is listed as excluded (\"lockfile\"); an empty list reads them. Names only.")
    max_json_mb: float = _f(1.0, "JSON files larger than this (MB) are left out as data (\"large JSON\"), never read; smaller ones are read as their keys and values, one \"key.path: value\" a line.",
                            min=0.0, max=1_000_000)
    ocr: bool = _f(True, "Read images (png, jpg, tiff, webp, bmp) and PDF pages without a text layer by OCR, after the text of every other file is indexed (needs the `ocr` extra; off: images are left out and scans keep only their text layer, until it is on again: then the next sync reads them by OCR).")


@dataclass(frozen=True)
class ChunkConfig:
    max_tokens: int = _f(200, "Passage length in bi-encoder word pieces (MiniLM truncates at 256, specials included).", min=16, max=510)
    overlap: float = _f(0.2, "Fraction of a passage repeated at the start of the next one.", min=0.0, max=0.89)
    title_context: bool = _f(True, "Embed each passage with its file's own title in front (HTML <title>, first heading, document metadata); the stored text and the lexical index are unchanged.")


@dataclass(frozen=True)
class ModelConfig:
    bi_encoder: str = _f(PACKAGED_BI_ENCODER, "Bi-encoder: the packaged model name, a local folder, or a Hugging Face id in the local cache.")
    pooling: str = _f("auto", "Token pooling of the bi-encoder: auto (the model's own, from its 1_Pooling/config.json; mean when it names none), mean, cls, max or wk (SBERT-WK, fuses layers 4..last).",
                       choices=("auto", "mean", "cls", "max", "wk"))
    reranker: str = _f(DEFAULT_RERANKER, "Cross-encoder: a local folder or a Hugging Face id in the local cache; empty disables reranking.")
    device: str = _f("auto", "auto (CUDA when present, else CPU), cpu, cuda or cuda:N.")
    precision: str = _f("auto", "auto (fp16 on CUDA, bf16 on CPUs where it is native and faster, else fp32), fp32, bf16 or fp16.",
                         choices=("auto", "fp32", "bf16", "fp16"))
    batch_size: int = _f(32, "Passages per encoder batch.", min=1, max=4096)
    rerank_max_length: int = _f(256, "Word pieces of query + passage the cross-encoder reads.", min=8, max=8192)
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
    mode: str = _f("hybrid", "hybrid (dense + lexical fused), dense or lexical.", choices=SEARCH_MODES)
    candidates: int = _f(50, "Candidates per retriever, fused, then reranked (rerank depth).", min=1, max=10_000)
    rrf_k: int = _f(60, "Reciprocal rank fusion constant.", min=1, max=100_000)
    rerank: bool = _f(True, "Rerank candidates with the cross-encoder when one is available.")
    group: str = _f("file", "file: each file once (its best passage, the others listed with it; k counts files); passage: every passage a row.",
                    choices=("file", "passage"))
    fusion: str = _f("convex", "How dense and lexical candidates are fused: convex (weighted cosine + normalised BM25) or rrf.",
                     choices=("convex", "rrf"))
    dense_weight: float = _f(0.8, "The dense side's share in fusion, 0..1 (the lexical side gets the rest).",
                           min=0.0, max=1.0)
    fold_repeats: bool = _f(True, "Results by file: exact copies of a file share one row (the others listed with it), and text "
                              "repeated across many files (a licence footer, a signature) fills at most one row.")
    fold_near_copies: bool = _f(True, "Results by file: a file whose text is almost all a file ranked above it (a PDF exported from a DOCX, an edited copy: 80% of their 5-word sequences shared, no number changed) is folded into that file's row (listed with it as a near copy); the next files fill the places. Also in a listing by date and in Similar files (the source's near copies said apart). Only with fold_repeats.")
    embed_on_search: int = _f(16, "While meaning is unfinished: passages without a vector a hybrid search embeds on the spot, its best word matches first, so its rows are ranked by meaning too (16 take about a second on a quiet 2-core CPU; 0: none). Never written by the search: the meaning pass takes them first.",
                              min=0, max=256)
    history: int = _f(100, "Recent queries kept (searches.sqlite in the data dir, private); 0 keeps none and drops those kept.",
                      min=0, max=10_000)


@dataclass(frozen=True)
class LibraryConfig:
    address: str = _f("", "A library a team shares: postgresql://user@host/database (docs/shared-library.md); empty: the data dir's own library. --library and $SEARCHAPP_LIBRARY come first. Never a password: ~/.pgpass, a service file or PGPASSWORD hold it.")
    path_map: tuple[str, ...] = _f((), "A shared library's folders of other machines as mounted here, each MACHINE:THEIR_FOLDER=FOLDER_HERE (e.g. \"nas-a:/mnt/share=/Volumes/share\"): their files are shown, opened and named at this desktop's mount point; whole path components only (docs/shared-library.md).")


@dataclass(frozen=True)
class Config:
    data_dir: Path = _f(Path("."), "Where the library (SQLite, vector index, config.toml) lives.")
    scan: ScanConfig = _f(ScanConfig(), "Scanning.")
    chunking: ChunkConfig = _f(ChunkConfig(), "Chunking.")
    models: ModelConfig = _f(ModelConfig(), "Models.")
    index: IndexConfig = _f(IndexConfig(), "Vector index.")
    search: SearchConfig = _f(SearchConfig(), "Search.")
    library: LibraryConfig = _f(LibraryConfig(), "Where the library is.")

    def replace(self, **sections: Mapping[str, Any]) -> "Config":
        """Return a copy with some fields of some sections changed: cfg.replace(search={"k": 5})."""
        return merge_checked(self, {k: dict(v) for k, v in sections.items()}, "override")

    def validate(self) -> "Config":
        """Every field against its type and its allowed values (field metadata); ConfigError names the key."""
        for top in fields(self):
            section = getattr(self, top.name)
            if not dataclasses.is_dataclass(section):
                continue
            for f in fields(section):
                check_setting(f"{top.name}.{f.name}", getattr(section, f.name))
        check_device(self.models.device)
        check_names("scan.secret_files", self.scan.secret_files)
        check_names("scan.lockfiles", self.scan.lockfiles)
        if self.library.address:  # a password there is refused, as on the command line (decision 0125)
            from ..library_address import checked_address, is_shared, masked

            if not is_shared(self.library.address):
                raise ConfigError(f"library.address: {masked(self.library.address)!r} is not a postgresql:// address")
            checked_address(self.library.address, "library.address")
        if self.library.path_map:  # a malformed entry is one line here, before any library opens
            from ..path_map import parse_path_map

            parse_path_map(self.library.path_map)
        return self


def allowed_values(key: str) -> Optional[str]:
    """The allowed values of `section.key` in words ("between 1 and 1000", "mean, cls, max or wk"), or None."""
    return describe_allowed(field_meta().get(key, {}))


def check_setting(key: str, value: Any) -> Any:
    """Raise ConfigError (exit 2) unless `value` is allowed for `section.key`; returns it. The library uses
    this for per-call values too (e.g. search(k=...)), so every route in obeys the same ranges."""
    return check_value(key, value, field_meta().get(key))


def setting_range(key: str) -> tuple[Any, Any]:
    """(lowest, highest) allowed for the numeric setting `section.key`: the CLI checks its options with these."""
    meta = field_meta()[key]
    return meta["min"], meta["max"]


def _default(f: dataclasses.Field[Any]) -> Any:
    """A field's default value, made by its factory when it has one."""
    return f.default if f.default_factory is dataclasses.MISSING else f.default_factory()


def field_meta() -> dict[str, Mapping[str, Any]]:
    """`section.key` -> the field's metadata (help, min, max, choices)."""
    out: dict[str, Mapping[str, Any]] = {}
    for top in fields(Config):
        section = _default(top)
        if dataclasses.is_dataclass(section):
            for f in fields(section):
                out[f"{top.name}.{f.name}"] = f.metadata
    return out


def field_help() -> dict[str, str]:
    """`section.key` -> help text for every configurable field."""
    out: dict[str, str] = {}
    for top in fields(Config):
        section = _default(top)
        if dataclasses.is_dataclass(section):
            for f in fields(section):
                out[f"{top.name}.{f.name}"] = f.metadata.get("help", "")
        else:
            out[top.name] = top.metadata.get("help", "")
    return out
