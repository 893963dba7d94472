"""Advisory file locks (flock) where the platform has them, written once for every lock of a library.

A library's locks are flocks on files in its data dir (writer.lock, the writer's raised hands writer.wants and
writer.resumes, searching.lock, warm.lock): a flock ends with its process, so a crash never leaves one held.
Where there is none (Windows), `fcntl` is None and each user does without, as it says: one writer still waits
for another's whole sync (no handover), a sync sees only its own process's searches, nothing serves the warm
index, and single-process use stays safe.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

from .errors import UnsupportedFileError
from .safe_open import open_regular_fd

try:
    import fcntl
except ImportError:  # no flock on this platform (Windows: msvcrt locking would go here)
    fcntl = None  # type: ignore[assignment]

__all__ = ["fcntl", "open_lock_file", "held_text"]


def open_lock_file(path: Path, *, create: bool) -> Optional[int]:
    """A descriptor on the lock file `path` (never through a link; made 0600 when `create`), or None where no
    flock can be held there: no flock here, no such file (and not `create`), a data dir that cannot be written,
    or something there that is not a regular file (a FIFO would block a plain open() for ever)."""
    if fcntl is None:
        return None
    try:
        return open_regular_fd(path, os.O_RDWR | os.O_CREAT, 0o600) if create else open_regular_fd(path)
    except (OSError, UnsupportedFileError):
        return None


def held_text(path: Path, *, held_shared: bool, create: bool = False) -> Optional[str]:
    """What another process holding a flock on `path` wrote in it (its first 512 bytes; "" when unreadable), or
    None when nobody holds one (one try, never waiting). `held_shared`: the holders hold shared flocks (a raised
    hand), so the try is exclusive; else the holder holds it exclusively (writer.lock) and the try is shared,
    which two lookers at once never mistake for a holder. `create`: as open_lock_file."""
    fd = open_lock_file(path, create=create)
    if fd is None:
        return None
    try:
        try:
            fcntl.flock(fd, (fcntl.LOCK_EX if held_shared else fcntl.LOCK_SH) | fcntl.LOCK_NB)
            return None  # nobody holds it
        except BlockingIOError:
            pass
        try:
            return os.pread(fd, 512, 0).decode("utf-8", "replace")
        except OSError:
            return ""
    finally:
        os.close(fd)
