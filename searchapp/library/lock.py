"""One writer per data directory: an advisory lock file held while the library changes."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Iterator

from ..base.errors import StoreError

__all__ = ["writer_lock"]

try:
    import fcntl
except ImportError:  # Windows: msvcrt locking would go here; single-process use is still safe
    fcntl = None  # type: ignore[assignment]


@contextlib.contextmanager
def writer_lock(data_dir: Path) -> Iterator[None]:
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / "writer.lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise StoreError(
                    f"another searchapp process is updating the library in {data_dir}; try again when it has finished"
                ) from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        yield
    finally:
        os.close(fd)  # closing releases the flock
