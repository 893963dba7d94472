"""One watcher per library (`searchapp watch`, or an open window: decision 0165): a second one synced every change
again behind the first (each waiting for the other's writer lock) and was easy to leave running forgotten.
watch.lock in the data dir is held by the watching process for its life (a flock: it ends with the process, a
crash never leaves it held) and names it."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Iterator

from ...base.errors import SearchAppError
from ...base.flock import fcntl, open_lock_file

__all__ = ["watching", "WatchTaken", "FILE_NAME", "WINDOW", "WATCH"]

FILE_NAME = "watch.lock"
WINDOW = "the window"  # what each kind of holder says it is, beside its pid
WATCH = "searchapp watch"


class WatchTaken(SearchAppError):
    """Another process watches the library; `holder` names it ("1234, searchapp watch", "1234, the window")."""

    def __init__(self, holder: str) -> None:
        why = ("; the window keeps the folders current while it is open (its File → Watch Folders for Changes "
               "turns that off)" if holder.endswith(WINDOW) else "; one process keeps it current")
        super().__init__(f"this library is already watched (process {holder}){why}")
        self.holder = holder


@contextlib.contextmanager
def watching(data_dir: Path, who: str = "") -> Iterator[None]:
    """Hold the library's watch lock; WatchTaken naming the process that holds it already. `who`: what the holder
    is, beside its pid ("the window"). Where no flock can be held (no flock here, a read-only data dir) the watch
    goes on, as before."""
    fd = open_lock_file(Path(data_dir) / FILE_NAME, create=True)
    if fd is None:
        yield
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 64, 0).decode("utf-8", "replace").strip() or "another process"
            raise WatchTaken(holder) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, (f"{os.getpid()}, {who}" if who else str(os.getpid())).encode(), 0)
        yield
    finally:
        os.close(fd)
