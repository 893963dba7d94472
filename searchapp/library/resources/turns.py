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

from ...base.flock import fcntl, held_text, open_lock_file

__all__ = ["WANTS", "RESUMES", "raise_hand", "lower_hand", "hand_raised", "hand_text"]

WANTS = "writer.wants"  # a writer waits for the lock
RESUMES = "writer.resumes"  # a writer stepped aside and waits to go on with its meaning pass

def raise_hand(path: Path, text: str = "") -> Optional[int]:
    """Hold a shared flock on `path` (the fd to pass to lower_hand), `text` written in it for whoever looks; None
    where it cannot be held (no flock, a data dir that cannot be written): then nobody is told, which only makes
    the wait longer."""
    fd = open_lock_file(path, create=True)
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


def lower_hand(fd: Optional[int]) -> None:
    if fd is not None:
        os.close(fd)  # closing releases the flock


def hand_raised(path: Path) -> bool:
    """Whether another holder of a shared flock on `path` is alive now (one exclusive try, never waiting)."""
    return hand_text(path) is not None


def hand_text(path: Path) -> Optional[str]:
    """The text of a raised hand on `path` ("" when it wrote none), or None when no hand is raised."""
    return held_text(path, held_shared=True, create=True)
