"""A cheap sign that a library changed on disk, for a window that should notice another process's sync (a
`searchapp index` in a terminal): every commit, from any process, grows or rewrites library.sqlite-wal (WAL
mode) or, at a checkpoint, library.sqlite. Two stat calls, no SQL: a window can ask every few seconds."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

from .data_dir import DB_NAME

__all__ = ["disk_mark"]


def disk_mark(data_dir: str | os.PathLike[str]) -> tuple[Optional[int], ...]:
    """(size, mtime_ns) of the library database and its write-ahead log; equal marks: no commit in between
    (reads never write either file; -shm is left out, as readers write to it)."""
    out: list[Optional[int]] = []
    for name in (DB_NAME, DB_NAME + "-wal"):
        try:
            st = os.stat(Path(data_dir) / name)
            out += [st.st_size, st.st_mtime_ns]
        except OSError:
            out += [None, None]
    return tuple(out)
