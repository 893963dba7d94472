"""Hands raised beside the writer lock: who waits for a turn, and who stepped aside and waits to go on.

Decision (docs/decisions/0105-a-long-writer-steps-aside-between-batches.md): a writer that waits for the lock holds
a shared flock on `writer.wants`; the holder, between its meaning batches, tries an exclusive flock on it: failing
means someone waits, and it hands the lock over. While it waits to take the lock back it holds a shared flock on
`writer.resumes` (with its pid and command line in it), so the writer it handed over to leaves the meaning queue to
it instead of embedding the whole backlog. A flock ends with its process: a waiter that crashed, or was killed,
never leaves a hand raised.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

from ..base.errors import UnsupportedFileError
from ..base.flock import fcntl
from ..base.safe_open import open_regular_fd

__all__ = ["WANTS", "RESUMES", "raise_hand", "lower_hand", "hand_raised", "hand_text"]

WANTS = "writer.wants"  # a writer waits for the lock
RESUMES = "writer.resumes"  # a writer stepped aside and waits to go on with its meaning pass

def raise_hand(path: Path, text: str = "") -> Optional[int]:
    """Hold a shared flock on `path` (the fd to pass to lower_hand), `text` written in it for whoever looks; None
    where it cannot be held (no flock, a data dir that cannot be written): then nobody is told, which only makes
    the wait longer."""
    fd = _open_hand(path)
    if fd is None:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)  # blocks only while another process looks (an exclusive try, a moment)
        if text:
            os.ftruncate(fd, 0)
            os.write(fd, text.encode("utf-8", "replace"))
    except OSError:
        pass  # the flock is what counts; a full disk leaves the text out
    return fd


def _open_hand(path: Path) -> Optional[int]:
    """The hand file's fd (never through a link, 0600), or None where no flock can be held."""
    if fcntl is None:
        return None
    try:
        return open_regular_fd(path, os.O_RDWR | os.O_CREAT, 0o600)
    except (OSError, UnsupportedFileError):
        return None


def lower_hand(fd: Optional[int]) -> None:
    if fd is not None:
        os.close(fd)  # closing releases the flock


def hand_raised(path: Path) -> bool:
    """Whether another holder of a shared flock on `path` is alive now (one exclusive try, never waiting)."""
    return hand_text(path) is not None


def hand_text(path: Path) -> Optional[str]:
    """The text of a raised hand on `path` ("" when it wrote none), or None when no hand is raised."""
    fd = _open_hand(path)
    if fd is None:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return None  # nobody holds it
        except BlockingIOError:
            pass
        try:
            return os.pread(fd, 512, 0).decode("utf-8", "replace")
        except OSError:
            return ""
    finally:
        os.close(fd)
