"""One writer per data directory: an advisory lock file held while the library changes."""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path
from typing import Iterator, Optional

from ..base.errors import StoreError, UnsupportedFileError
from ..base.safe_open import open_regular_fd

__all__ = ["writer_lock", "writer_holder"]

try:
    import fcntl
except ImportError:  # Windows: msvcrt locking would go here; single-process use is still safe
    fcntl = None  # type: ignore[assignment]


def writer_holder(data_dir: Path) -> Optional[int]:
    """The process id of another process holding the writer lock now (a sync under way), else None. A flock
    ends with its process, so a held lock is a live writer, never a crashed one; this process's own lock is
    not another's (None)."""
    if fcntl is None:
        return None
    path = data_dir / "writer.lock"
    try:
        fd = open_regular_fd(path)  # a FIFO put there would block a plain open() forever
    except (OSError, UnsupportedFileError):
        return None  # never written (or not a lock file): no writer
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return None  # nobody holds it
        except BlockingIOError:
            pass
        try:
            pid = int(os.pread(fd, 32, 0).decode("ascii", "replace").strip() or 0)
        except (OSError, ValueError):
            pid = 0
        return None if pid == os.getpid() else pid
    finally:
        os.close(fd)


@contextlib.contextmanager
def writer_lock(data_dir: Path, wait: float = 5.0) -> Iterator[None]:
    """Hold the library's writer lock. Waits up to `wait` seconds: another process may hold it briefly
    (a searcher saving a repaired index); a long holder is a real second writer and gets a clear error."""
    path = data_dir / "writer.lock"
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        fd = open_regular_fd(path, os.O_RDWR | os.O_CREAT, 0o600)  # private, like everything in the data dir
    except (OSError, UnsupportedFileError) as exc:  # read-only or full disk, or a lock path that is not a file
        why = getattr(exc, "strerror", None) or exc
        raise StoreError(f"cannot write to the library in {data_dir}: {why} ({path}); "
                         "the library is unchanged and can still be searched") from None
    try:
        if fcntl is not None:
            deadline = time.monotonic() + wait
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise StoreError(
                            f"another searchapp process is updating the library in {data_dir}; try again when it has finished"
                        ) from None
                    time.sleep(0.05)
        try:
            os.ftruncate(fd, 0)
            os.write(fd, str(os.getpid()).encode())  # for people; the flock is what excludes
        except OSError:
            pass  # a full disk must not stop the lock from working
        yield
    finally:
        os.close(fd)  # closing releases the flock
