"""One `searchapp watch` per library: a second one synced every change again behind the first (each waiting for
the other's writer lock) and was easy to leave running forgotten. watch.lock in the data dir is held by the
watching process for its life (a flock: it ends with the process, a crash never leaves it held) and names it."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Iterator

from ...base.errors import SearchAppError
from ...base.flock import fcntl, open_lock_file

__all__ = ["watching", "FILE_NAME"]

FILE_NAME = "watch.lock"


@contextlib.contextmanager
def watching(data_dir: Path) -> Iterator[None]:
    """Hold the library's watch lock; SearchAppError naming the process that holds it already. Where no flock
    can be held (no flock here, a read-only data dir) the watch goes on, as before."""
    fd = open_lock_file(Path(data_dir) / FILE_NAME, create=True)
    if fd is None:
        yield
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 64, 0).decode("utf-8", "replace").strip() or "another process"
            raise SearchAppError(f"this library is already watched (process {holder}); one `searchapp watch` keeps "
                                 "it current") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield
    finally:
        os.close(fd)
