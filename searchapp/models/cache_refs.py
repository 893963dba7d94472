"""Which snapshot of a cached model is current, read from the Hugging Face cache layout ourselves (decision 0127):
<cache>/models--owner--name/refs/main names a commit, and snapshots/<commit>/ holds its files. huggingface_hub
lays the cache out so and `models pull` writes it so (hub/cache.py); reading it here costs no import of
huggingface_hub (about 0.6 CPU-s, 22 MB, at every start that looked up a cached reranker or
bi-encoder).

The ref is a file anyone who can write the cache may have changed: it is opened only if it is a regular file (a
FIFO would block forever), read up to a small cap, and must be a commit id (hex): never a path that leads out of
the snapshots folder."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Optional

from ..base.errors import UnsupportedFileError
from ..base.safe_open import open_regular

__all__ = ["ref_commit", "current_snapshot"]

_COMMIT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")  # a git sha1 or sha256 in hex, as huggingface_hub writes it
_MAX_REF = 256


def ref_commit(repo_dir: Path, ref: str = "main") -> Optional[str]:
    """The commit `refs/<ref>` names; None when the file is missing, not a regular file, unreadable or not a
    commit id."""
    try:
        with open_regular(repo_dir / "refs" / ref) as fh:
            text = fh.read(_MAX_REF).decode("ascii").strip()
    except (OSError, ValueError, UnsupportedFileError):
        return None
    return text if _COMMIT.fullmatch(text) else None


def current_snapshot(repo_dir: Path) -> Optional[Path]:
    """snapshots/<the commit refs/main names>, when that folder is there; else None (what huggingface_hub's
    snapshot_download(local_files_only=True) answers for the main revision)."""
    commit = ref_commit(repo_dir)
    if commit is None:
        return None
    snap = repo_dir / "snapshots" / commit
    return snap if snap.is_dir() else None
