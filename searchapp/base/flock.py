"""Advisory file locks (flock) where the platform has them, written once for every lock of a library.

A library's locks are flocks on files in its data dir (writer.lock, the writer's raised hands writer.wants and
writer.resumes, searching.lock, warm.lock): a flock ends with its process, so a crash never leaves one held.
Where there is none (Windows), `fcntl` is None and each user does without, as it says: one writer still waits
for another's whole sync (no handover), a sync sees only its own process's searches, nothing serves the warm
index, and single-process use stays safe.
"""

from __future__ import annotations

try:
    import fcntl
except ImportError:  # no flock on this platform (Windows: msvcrt locking would go here)
    fcntl = None  # type: ignore[assignment]

__all__ = ["fcntl"]
