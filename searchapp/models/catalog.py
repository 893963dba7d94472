"""Every model the app can use, for `searchapp models list` and the settings: the packaged MiniLM, the
local folders the configuration names, and each model in the Hugging Face cache. Offline; no torch."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Optional

from ..base.config import Config
from ..base.errors import SearchAppError
from .cache_refs import current_snapshot, ref_commit
from .hub.cache import folder_bytes, guess_role
from .policy import REPO_FOLDER_PREFIX, repo_id_of_folder
from .resolve import PACKAGED_NAMES, hf_cache_dir, is_path_spec, packaged_model_path, weights_sha256

__all__ = ["ModelEntry", "list_models"]


@dataclass
class ModelEntry:
    role: str  # "bi-encoder" | "reranker"
    id: str  # a Hugging Face id, the packaged name, or a folder
    source: str  # "packaged" | "local" | "cache" | "missing"
    path: Optional[str]
    bytes: int
    sha256: Optional[str]
    in_use: list[str] = field(default_factory=list)  # the roles the configuration gives it
    problem: Optional[str] = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def list_models(config: Config, cache_dir: Optional[Path] = None) -> list[ModelEntry]:
    m = config.models
    uses = {"bi-encoder": m.bi_encoder.strip(), "reranker": m.reranker.strip()}
    entries: list[ModelEntry] = []

    try:
        p = packaged_model_path()
        entries.append(_entry("bi-encoder", PACKAGED_NAMES[0], "packaged", p))
    except SearchAppError as exc:
        entries.append(ModelEntry("bi-encoder", PACKAGED_NAMES[0], "missing", None, 0, None, problem=str(exc)))

    cache = Path(cache_dir) if cache_dir is not None else hf_cache_dir()
    for repo in sorted(cache.glob(REPO_FOLDER_PREFIX + "*")) if cache.is_dir() else []:
        repo_id = repo_id_of_folder(repo.name)
        snap = _snapshot(repo)
        if snap is None:
            continue
        entries.append(_entry(guess_role(snap), repo_id, "cache", snap))

    for role, spec in uses.items():
        if not spec:
            continue
        match = [e for e in entries if _same(e, spec)]
        if not match:
            folder = Path(spec).expanduser()
            if is_path_spec(spec) and folder.is_dir():  # a hub id is never a folder under the cwd
                e = _entry(role, str(folder.resolve()), "local", folder.resolve())
            else:
                e = ModelEntry(role, spec, "missing", None, 0, None,
                               problem="not installed: `searchapp models pull " + spec + "`" if "/" in spec else "not found")
            entries.append(e)
            match = [e]
        for e in match:
            e.in_use.append(role)
    return entries


def _same(e: ModelEntry, spec: str) -> bool:
    if e.source == "packaged":
        return spec.lower() in (n.lower() for n in PACKAGED_NAMES)
    if e.source == "cache":
        return spec == e.id
    return e.path is not None and Path(spec).expanduser().resolve() == Path(e.path)


def _entry(role: str, ident: str, source: str, path: Path) -> ModelEntry:
    sha, problem = None, None
    try:
        sha = weights_sha256(path)
    except SearchAppError as exc:
        problem = str(exc)
    return ModelEntry(role, ident, source, str(path), folder_bytes(path), sha, problem=problem)


def _snapshot(repo: Path) -> Optional[Path]:
    """The snapshot refs/main names. Without a ref to read (another tool's partial copy; a FIFO, never opened),
    the last one there; a readable ref that names no commit names nothing, as it does for resolving the model."""
    if ref_commit(repo) is None:
        if (repo / "refs" / "main").is_file():  # stat only: a FIFO is not a file and is never opened
            return None
        snaps = sorted((repo / "snapshots").glob("*")) if (repo / "snapshots").is_dir() else []
        return snaps[-1] if snaps else None
    return current_snapshot(repo)
