"""Asking the hub what a pull fetches (small requests, no weights yet): the commit `main` is at, and the files
the policy wants from it, each checked (a plain name, a sane size, a hex sha256 for weights). A repository
a pull cannot use is refused here, before a byte of weights is downloaded."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from fnmatch import fnmatch
from typing import Any, Optional

from ...base.config import DEFAULT_RERANKER
from ...base.errors import ConfigError, ModelLoadError
from ...base.progress import CancelToken
from ...base.terminal import printable
from ..policy import (ALLOW_PATTERNS, OTHER_RUNTIME_SUFFIXES, PICKLE_SUFFIXES, SKIP_FOLDERS,
                      check_repo_id)
from .errors import DownloadError, mb
from .http import HubClient, hub_endpoint
from .worker import run_cancellable

__all__ = ["KnownModel", "KNOWN_MODELS", "known_model", "RemoteFile", "RemoteModel", "MAX_FILES", "MAX_PULL_BYTES",
           "max_pull_bytes", "wanted", "plan_pull"]

MAX_FILES = 200  # a model folder has a dozen files; anything beyond this is not a model we can use
MAX_PULL_BYTES = 8_000_000_000  # all files of one pull together; $SEARCHAPP_MAX_PULL_MB overrides it
# A file name a pull will write: plain ASCII words, at most one folder deep (e.g. 1_Pooling/config.json).
_SAFE_PATH = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-+@=,~ ]{0,127}(/[A-Za-z0-9_][A-Za-z0-9_.\-+@=,~ ]{0,127})?")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_UNUSABLE_WEIGHTS = PICKLE_SUFFIXES + OTHER_RUNTIME_SUFFIXES  # named when a repository has no safetensors


@dataclass(frozen=True)
class KnownModel:
    role: str  # "reranker" | "bi-encoder"
    repo_id: str
    size_mb: int  # what a pull fetches, rounded (the hub's file list: weights, tokenizer, configs)
    note: str
    mteb_retrieval: Optional[float] = None  # bi-encoders: the MTEB (English) retrieval average its model card gives
    speed: str = ""  # passages per CPU-second on the reference CPU, beside the default's (bench_small_bi_encoders.py)


# A short list the GUI offers and `searchapp models list` names; any other id works too. The bi-encoders: small
# models that score far above the default all-MiniLM-L6-v2 (MTEB retrieval 41.95) at its size; each declares its
# pooling and prompts, which searchapp reads from its files (models/sentence_conventions.py, decision 0112).
# Speed: measured on a 2-core AVX2-only AMD EPYC under load 12-14, chunk-sized passages, precision auto (fp32), 2
# threads, as a BERT of each model's config.json shape with random weights (speed depends on the shape only; the
# real weights could not be fetched there): bench_small_bi_encoders.py, 2026-11-29.
# CPU seconds per passage against the default's, same run (32 passages, best of 2 rounds by turns): the default
# 9.1 passages per CPU-second (3.51 CPU s), 6 x 384 8.8 (3.62 s), 12 x 384 4.8 (6.70 s), multilingual-e5 4.7
# (6.77 s), 12 x 768 1.2 (25.7 s); wall 2.7 / 2.1 / 1.2 / 1.2 / 0.3 passages/s at load 12-14.
SPEED_XS = "8.8 passages per CPU-second on the reference 2-core EPYC (the default: 9.1)"
SPEED_S = "4.8 passages per CPU-second on the reference 2-core EPYC (the default: 9.1)"
SPEED_ML = "4.7 passages per CPU-second on the reference 2-core EPYC (the default: 9.1)"
SPEED_MPNET = "1.2 passages per CPU-second on the reference 2-core EPYC (the default: 9.1)"
KNOWN_MODELS = (
    KnownModel("reranker", DEFAULT_RERANKER, 90, "fast English reranker (MS MARCO), the default"),
    KnownModel("reranker", "cross-encoder/ms-marco-MiniLM-L-12-v2", 130, "larger English reranker: better, ~2x slower"),
    KnownModel("bi-encoder", "Snowflake/snowflake-arctic-embed-xs", 91,
               "English, MTEB retrieval 50.15 (default 41.95), 22 M parameters: as fast as the default",
               50.15, SPEED_XS),
    KnownModel("bi-encoder", "BAAI/bge-small-en-v1.5", 134,
               "English, MTEB retrieval 51.68, 33 M parameters: ~2x the default's time", 51.68, SPEED_S),
    KnownModel("bi-encoder", "Snowflake/snowflake-arctic-embed-s", 134,
               "English, MTEB retrieval 51.98, 33 M parameters: ~2x the default's time", 51.98, SPEED_S),
    KnownModel("bi-encoder", "intfloat/e5-small-v2", 134,
               "English, MTEB retrieval 49.04, 33 M parameters: ~2x the default's time", 49.04, SPEED_S),
    KnownModel("bi-encoder", "intfloat/multilingual-e5-small", 493,
               "~100 languages, 118 M parameters (most in its vocabulary): ~2x the default's time", None, SPEED_ML),
    KnownModel("bi-encoder", "sentence-transformers/all-mpnet-base-v2", 440,
               "English, MTEB retrieval 43.81, 110 M parameters: ~7x the default's time", 43.81, SPEED_MPNET),
    KnownModel("bi-encoder", "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2", 470,
               "50+ languages, for files not in English"),
)


def known_model(repo_id: str) -> Optional[KnownModel]:
    return next((k for k in KNOWN_MODELS if k.repo_id == repo_id), None)


@dataclass(frozen=True)
class RemoteFile:
    path: str
    size: int
    sha256: Optional[str]  # the hub's LFS sha256, for weights


@dataclass(frozen=True)
class RemoteModel:
    repo_id: str
    commit: str
    endpoint: str
    files: tuple[RemoteFile, ...]

    @property
    def total_bytes(self) -> int:
        return sum(f.size for f in self.files)


def max_pull_bytes() -> int:
    """The most one pull may fetch: $SEARCHAPP_MAX_PULL_MB (megabytes), else MAX_PULL_BYTES."""
    raw = os.environ.get("SEARCHAPP_MAX_PULL_MB", "").strip()
    if not raw:
        return MAX_PULL_BYTES
    try:
        megabytes = float(raw)
    except ValueError:
        megabytes = -1.0
    if not megabytes > 0:
        raise ConfigError(f"SEARCHAPP_MAX_PULL_MB must be a positive number of megabytes, not {printable(raw)!r}.")
    return int(megabytes * 1e6)


def wanted(path: str) -> bool:
    """Whether a pull fetches the repository file `path` (policy.ALLOW_PATTERNS, outside SKIP_FOLDERS)."""
    if any(path.startswith(d) for d in SKIP_FOLDERS) or path.count("/") > 1:
        return False
    return any(fnmatch(path.rsplit("/", 1)[-1], pat) for pat in ALLOW_PATTERNS)


def _remote_file(entry: dict[str, Any], repo_id: str, host: str) -> RemoteFile:
    """A listed file a pull will fetch, checked: a safe relative name, a sane size, a hex sha256 for weights."""
    path = entry["path"]
    if not _SAFE_PATH.fullmatch(path) or ".." in path:
        raise DownloadError(f"{host} lists a file named {printable(path)!r} for {repo_id}; a pull only writes plain "
                            "names (at most one folder deep), so nothing was downloaded.")
    lfs = entry.get("lfs") if isinstance(entry.get("lfs"), dict) else None
    size = (lfs or entry).get("size")
    sha = lfs.get("oid") if lfs else None
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise DownloadError(f"{host} gave no usable size for {printable(path)} of {repo_id}; nothing was downloaded.")
    if lfs is not None and not (isinstance(sha, str) and _SHA256.fullmatch(sha.lower())):
        raise DownloadError(f"{host} gave a malformed sha256 for {printable(path)} of {repo_id}; nothing was downloaded.")
    if path.endswith(".safetensors") and lfs is None:
        raise DownloadError(f"{host} gave no sha256 for the weights {printable(path)} of {repo_id}; they cannot be "
                            "checked, so nothing was downloaded.")
    return RemoteFile(path, size, sha.lower() if sha else None)


def plan_pull(repo_id: str, *, endpoint: Optional[str] = None, cancel: Optional[CancelToken] = None) -> RemoteModel:
    """Ask the hub which commit `repo_id` is at and which of its files a pull fetches (network; small requests).

    Refuses a repository without safetensors weights, or bigger than max_pull_bytes(), before anything is
    downloaded.
    """
    check_repo_id(repo_id)
    cancel = cancel or CancelToken()
    endpoint = hub_endpoint(endpoint)
    client = HubClient(endpoint, cancel)

    def ask() -> tuple[str, list[dict[str, Any]]]:
        commit = client.revision(repo_id)
        return commit, client.tree(repo_id, commit)

    commit, entries = run_cancellable(ask, cancel, f"plan {repo_id}")
    names = [e["path"] for e in entries if e.get("type", "file") == "file" and isinstance(e.get("path"), str)]
    files = tuple(_remote_file(e, repo_id, client.host) for e in entries
                  if e.get("type", "file") == "file" and isinstance(e.get("path"), str) and wanted(e["path"]))
    if not any(f.path.endswith(".safetensors") for f in files):
        pickles = [printable(n) for n in names if n.endswith(_UNUSABLE_WEIGHTS)]
        if pickles:
            raise ModelLoadError(
                f"{repo_id} has only pickled weights ({', '.join(sorted(pickles)[:3])}); searchapp loads safetensors "
                "only (a pickle can run code when loaded), so nothing was downloaded.")
        raise ModelLoadError(f"{repo_id} has no model.safetensors weights, so it cannot be used; nothing was downloaded.")
    if not any(f.path in ("config.json", "modules.json") for f in files):
        raise ModelLoadError(f"{repo_id} has no config.json; it is not a Transformers model, so nothing was downloaded.")
    if len(files) > MAX_FILES:
        raise ModelLoadError(f"{repo_id} has {len(files)} files to fetch; that is not a single model, so nothing was downloaded.")
    if len({f.path for f in files}) != len(files):
        raise DownloadError(f"{client.host} lists a file of {repo_id} twice; nothing was downloaded.")
    plan = RemoteModel(repo_id, commit, endpoint, tuple(sorted(files, key=lambda f: (f.size, f.path))))
    cap = max_pull_bytes()
    if plan.total_bytes > cap:
        raise DownloadError(f"{repo_id} is {mb(plan.total_bytes)}, more than a pull may fetch ({mb(cap)}; "
                            "$SEARCHAPP_MAX_PULL_MB raises it); nothing was downloaded.")
    # Small files first (that sort): a wrong repository fails on its config before 400 MB of weights arrive.
    return plan
