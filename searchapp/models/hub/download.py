"""A pull: plan it, fetch the planned files into a staging folder on a worker thread (Cancel and Ctrl+C work
while a request stalls), check the model loads, then install it into the cache in one move."""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from ...base.errors import ModelLoadError, SearchAppError
from ...base.progress import CancelToken, ProgressFn, report
from ...base.terminal import printable
from ..policy import check_repo_id
from ..resolve import hf_cache_dir, resolve_model
from .cache import STAGING_PREFIX, folder_bytes, guess_role, install, installed_snapshot, lay_out, remove_stale_staging
from .errors import DownloadError, disk_error, mb
from .http import HubClient, hub_endpoint, parse_endpoint
from .plan import RemoteModel, plan_pull
from .worker import run_cancellable

__all__ = ["PulledModel", "pull_model"]


@dataclass(frozen=True)
class PulledModel:
    repo_id: str
    role: str
    path: Path  # the snapshot folder in the Hugging Face cache
    commit: str
    sha256: str
    bytes: int
    already_present: bool = False
    notes: list[str] = field(default_factory=list)


def pull_model(repo_id: str, *, role: Optional[str] = None, endpoint: Optional[str] = None,
               cache_dir: Optional[Path] = None, progress: Optional[ProgressFn] = None,
               cancel: Optional[CancelToken] = None) -> PulledModel:
    """Download `repo_id` into the Hugging Face cache, check it loads, and return where it is.

    `role` ("reranker" or "bi-encoder") is guessed from config.json when None. Raises Cancelled when
    `cancel` is set (then nothing is installed), DownloadError, ModelNotFoundError or ModelLoadError.
    """
    cancel = cancel or CancelToken()
    repo_id = repo_id.strip()  # as typed or pasted
    check_repo_id(repo_id)
    parse_endpoint(hub_endpoint(endpoint))  # a malformed HF_ENDPOINT is one sentence, before anything else
    cache = Path(cache_dir) if cache_dir is not None else hf_cache_dir()
    remove_stale_staging(cache)
    report(progress, "asking the hub", 0, None, repo_id)
    plan = plan_pull(repo_id, endpoint=endpoint, cancel=cancel)
    cancel.check()

    present = installed_snapshot(repo_id, cache, plan)
    if present is not None:
        role = role or guess_role(present)
        sha = _verify_loads(present, role, repo_id)
        return PulledModel(repo_id, role, present, plan.commit, sha, folder_bytes(present), already_present=True)

    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise disk_error(exc, cache, plan) from exc
    free = shutil.disk_usage(cache).free
    if free < plan.total_bytes + (16 << 20):
        raise DownloadError(f"Not enough disk space for {repo_id}: it needs {mb(plan.total_bytes)}, "
                            f"and {cache} has {mb(free)} free.")
    staging = Path(tempfile.mkdtemp(prefix=f"{STAGING_PREFIX}{os.getpid()}-", dir=cache))
    try:
        try:
            blobs = _download(plan, staging, progress, cancel)
            cancel.check()
            report(progress, "checking", 0, None, repo_id)
            staged = lay_out(plan, staging, blobs)
        except OSError as exc:
            raise disk_error(exc, cache, plan) from exc
        snapshot = staged / "snapshots" / plan.commit
        role = role or guess_role(snapshot)
        sha = _verify_loads(snapshot, role, repo_id)
        cancel.check()
        path = install(staged, cache, plan.commit) / "snapshots" / plan.commit
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    # The proof the issue asks for: found offline, the way the app looks models up.
    if cache_dir is None or Path(cache_dir) == hf_cache_dir():
        resolve_model(repo_id, kind=role)
    report(progress, "done", plan.total_bytes, plan.total_bytes, repo_id)
    return PulledModel(repo_id, role, path, plan.commit, sha, plan.total_bytes)


def _download(plan: RemoteModel, staging: Path, progress: Optional[ProgressFn], cancel: CancelToken) -> list[str]:
    """Fetch every planned file into staging/files/<n>.part (names we chose); returns each file's blob name.

    Each body is capped at its declared size while streaming, and weights must match the hub's sha256."""
    client = HubClient(plan.endpoint, cancel)
    parts = staging / "files"
    parts.mkdir()
    total = plan.total_bytes
    state = {"done": 0}

    def work() -> list[str]:
        names = []
        for i, f in enumerate(plan.files):
            cancel.check()
            before = state["done"]

            def counted(n: int, name: str = f.path) -> None:
                state["done"] += n
                if state["done"] > total:  # cannot happen while each file is capped; the total cap's backstop
                    raise DownloadError(f"{plan.repo_id} sent more than its {mb(total)}; stopped.")
                report(progress, "downloading", state["done"], total, name)

            # "x": exclusive create; the folder was made by us and never re-created, so an abandoned
            # download cannot write once the staging folder is gone.
            with open(parts / f"{i}.part", "xb") as out:
                sha256, git_sha1 = client.fetch(plan.repo_id, plan.commit, f.path, f.size, out, counted)
            if f.sha256 and sha256 != f.sha256:
                raise DownloadError(f"{printable(f.path)} of {plan.repo_id} arrived corrupted (sha256 mismatch); "
                                    "nothing was installed. Try again.")
            names.append(sha256 if f.sha256 else git_sha1)  # how huggingface_hub names blobs: LFS sha256, git sha1
            state["done"] = before + f.size
            report(progress, "downloading", state["done"], total, f.path)
        return names

    report(progress, "downloading", 0, total, "")
    return run_cancellable(work, cancel, f"pull {plan.repo_id}")


def _verify_loads(snapshot: Path, role: str, repo_id: str) -> str:
    """Load the model once on the CPU (the same classes the app uses); returns the weights' sha256."""
    if role not in ("reranker", "bi-encoder"):
        raise SearchAppError(f"unknown role {role!r}: use reranker or bi-encoder")
    try:
        if role == "reranker":
            from ..cross_encoder import CrossEncoder

            sha256 = CrossEncoder(str(snapshot), device="cpu", precision="fp32", threads=1).resolved.sha256
        else:
            from ..bi_encoder import BiEncoder

            sha256 = BiEncoder(str(snapshot), device="cpu", precision="fp32", threads=1).resolved.sha256
    except ModelLoadError as exc:
        raise ModelLoadError(f"{repo_id} was downloaded but cannot be used as a {role}, so it was not installed: "
                             f"{_first_sentence(str(exc))}") from exc
    return sha256


def _first_sentence(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line[:300]
