"""How much work a refusal did, counted instead of timed: "refused quickly" means refused before the work, and
a count says so on any machine, however busy (a wall-clock bound fails on a loaded 2-core laptop)."""

from __future__ import annotations

import zipfile
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def inflated_bytes() -> Iterator[list[int]]:
    """The bytes every zip member opened inside the block gave its reader (read and read1), as got[0]."""
    got = [0]
    read, read1 = zipfile.ZipExtFile.read, zipfile.ZipExtFile.read1

    def counting(fn):
        def wrapped(self, *args, **kw):
            data = fn(self, *args, **kw)
            got[0] += len(data)
            return data
        return wrapped

    zipfile.ZipExtFile.read, zipfile.ZipExtFile.read1 = counting(read), counting(read1)  # type: ignore[method-assign]
    try:
        yield got
    finally:
        zipfile.ZipExtFile.read, zipfile.ZipExtFile.read1 = read, read1  # type: ignore[method-assign]
