"""The Hugging Face cache layout a pull writes (<cache>/models--owner--name/{blobs, snapshots/<commit>, refs/main}),
built in a staging folder and moved in complete, so `resolve_model` finds a pulled model offline like any cached
one; and removing a model, or the staging folders of pulls that were killed."""

from __future__ import annotations

import json
import os
import shutil
import uuid
from pathlib import Path
from typing import Optional

from ...base.errors import ModelNotFoundError, UnsupportedFileError
from ...base.safe_open import open_regular
from ...base.terminal import printable
from ..policy import check_repo_id, repo_folder_name
from ..resolve import hf_cache_dir
from .errors import DownloadError
from .plan import RemoteModel

__all__ = ["STAGING_PREFIX", "repo_folder", "lay_out", "install", "installed_snapshot", "guess_role",
           "remove_stale_staging", "remove_cached_model", "folder_bytes"]

STAGING_PREFIX = ".searchapp-pull-"  # + pid + "-": a later pull removes the folder once that process is gone


def repo_folder(repo_id: str, cache: Path) -> Path:
    return cache / repo_folder_name(repo_id)


def _inside(root: Path, path: Path, *, may_be_root: bool = False) -> Path:
    """`path`, after checking it resolves inside `root` (file names come from the hub)."""
    real_root, real = os.path.realpath(root), os.path.realpath(path)
    if os.path.commonpath([real_root, real]) != real_root or (real == real_root and not may_be_root):
        raise DownloadError(f"{printable(path.name)} would be written outside the download folder; refused.")
    return path


def lay_out(plan: RemoteModel, staging: Path, blobs: list[str]) -> Path:
    """Build the Hugging Face cache layout in staging from the downloaded parts; returns the repository folder."""
    repo_dir = staging / repo_folder_name(plan.repo_id)
    blob_dir = repo_dir / "blobs"
    snap = repo_dir / "snapshots" / plan.commit
    blob_dir.mkdir(parents=True)
    snap.mkdir(parents=True)
    for i, (f, name) in enumerate(zip(plan.files, blobs, strict=True)):
        blob = _inside(blob_dir, blob_dir / name)
        part = staging / "files" / f"{i}.part"
        if blob.exists():  # the same bytes under two names
            part.unlink()
        else:
            os.replace(part, blob)
        dest = _inside(snap, snap / f.path)
        dest.parent.mkdir(exist_ok=True)
        _inside(snap, dest.parent, may_be_root=True)
        try:
            os.symlink(os.path.relpath(blob, dest.parent), dest)  # as huggingface_hub lays it out
        except OSError:
            shutil.copyfile(blob, dest)  # no symlinks here (some Windows setups): a copy works as well
    _write_ref(repo_dir, plan.commit)
    return repo_dir


def guess_role(snapshot: Path) -> str:
    """reranker for a sequence classifier (config.json's architectures), else bi-encoder."""
    try:
        with open_regular(snapshot / "config.json") as fh:  # never open a FIFO: it would block forever
            cfg = json.loads(fh.read(1 << 20).decode("utf-8"))
    except (OSError, ValueError, UnsupportedFileError):
        return "bi-encoder"  # a sentence-transformers layout keeps config.json in a module folder
    archs = cfg.get("architectures") or []
    return "reranker" if any(str(a).endswith("ForSequenceClassification") for a in archs) else "bi-encoder"


def installed_snapshot(repo_id: str, cache: Path, plan: RemoteModel) -> Optional[Path]:
    snap = repo_folder(repo_id, cache) / "snapshots" / plan.commit
    if snap.is_dir() and all((snap / f.path).is_file() for f in plan.files):
        _write_ref(repo_folder(repo_id, cache), plan.commit)
        return snap
    return None


def install(staged: Path, cache: Path, commit: str) -> Path:
    """Move a complete staged repository folder into the cache; returns the repository folder there."""
    _write_ref(staged, commit)  # files were fetched by commit; `main` is how the cache finds them offline
    target = cache / staged.name
    if not target.exists():
        os.replace(staged, target)  # one rename: the model is either absent or complete
        return target
    # An older revision (or an earlier partial copy made by other tools) is there: add the new blobs,
    # then swap the snapshot in, then point refs/main at it.
    (target / "blobs").mkdir(parents=True, exist_ok=True)
    for blob in (staged / "blobs").iterdir():
        dest = target / "blobs" / blob.name
        if not dest.exists():
            os.replace(blob, dest)
    snaps = target / "snapshots"
    snaps.mkdir(exist_ok=True)
    old = snaps / commit
    if old.exists():
        trash = snaps / f".{commit}.old-{uuid.uuid4().hex[:8]}"
        os.replace(old, trash)
        shutil.rmtree(trash, ignore_errors=True)
    os.replace(staged / "snapshots" / commit, old)
    _write_ref(target, commit)
    return target


def _write_ref(repo_dir: Path, commit: str) -> None:
    refs = repo_dir / "refs"
    refs.mkdir(parents=True, exist_ok=True)
    tmp = refs / f".main.{uuid.uuid4().hex[:8]}"
    tmp.write_text(commit, encoding="ascii")
    os.replace(tmp, refs / "main")


def remove_stale_staging(cache: Path) -> int:
    """Remove staging folders of pulls whose process is gone (killed mid-download). Returns how many."""
    removed = 0
    try:
        entries = list(cache.iterdir())
    except OSError:
        return 0
    for d in entries:
        if not d.name.startswith(STAGING_PREFIX):
            continue
        try:
            pid = int(d.name[len(STAGING_PREFIX):].split("-", 1)[0])
        except ValueError:
            continue
        if pid != os.getpid() and not _pid_alive(pid):
            shutil.rmtree(d, ignore_errors=True)
            removed += 1
    return removed


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def remove_cached_model(repo_id: str, cache_dir: Optional[Path] = None) -> int:
    """Delete `repo_id` from the Hugging Face cache; returns the bytes freed. Renamed away first, so a
    half-deleted model is never found."""
    check_repo_id(repo_id)
    cache = Path(cache_dir) if cache_dir is not None else hf_cache_dir()
    folder = repo_folder(repo_id, cache)
    if not folder.is_dir():
        raise ModelNotFoundError(f"{repo_id} is not in the Hugging Face cache ({cache}); `searchapp models list` shows what is.")
    size = folder_bytes(folder, follow_links=False)
    trash = cache / f".{folder.name}.removing-{uuid.uuid4().hex[:8]}"
    os.replace(folder, trash)
    shutil.rmtree(trash, ignore_errors=True)
    shutil.rmtree(cache / ".locks" / folder.name, ignore_errors=True)
    return size


def folder_bytes(folder: Path, follow_links: bool = True) -> int:
    """Bytes under `folder`; a snapshot's files are links to blobs: follow them there, not in a whole repo folder."""
    total = 0
    for root, _dirs, files in os.walk(folder):
        for name in files:
            try:
                total += os.stat(os.path.join(root, name), follow_symlinks=follow_links).st_size
            except OSError:
                pass
    return total
