"""Read-only connections to the library database, one per thread, and the reads in flight on them.

A search sees only committed batches and never waits for a sync. `close` waits for reads in flight: closing
a SQLite connection under a running query can crash.
"""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path
from typing import Iterator

from ...base.errors import StoreError
from ...store import Store

__all__ = ["ReadConnections"]


class ReadConnections:
    def __init__(self, db_path: Path, *, immutable_ok: bool) -> None:
        self._path, self._immutable_ok = db_path, immutable_ok
        self._local = threading.local()
        self._stores: list[Store] = []
        self._cv = threading.Condition()
        self._in_flight = 0
        self._closed = False

    def connection(self) -> Store:
        """This thread's read-only connection."""
        st = getattr(self._local, "store", None)
        if st is None:
            st = self._local.store = Store(self._path, readonly=True, immutable_ok=self._immutable_ok)
            self._stores.append(st)
        return st

    @contextlib.contextmanager
    def reading(self) -> Iterator[None]:
        """One public read: refused once closing began, waited for by `shut`."""
        with self._cv:
            if self._closed:
                raise StoreError("the library is closed")
            self._in_flight += 1
        try:
            yield
        finally:
            with self._cv:
                self._in_flight -= 1
                self._cv.notify_all()

    def shut(self, timeout: float = 60) -> bool:
        """Refuse new reads and wait for those in flight; False when already shut."""
        with self._cv:
            if self._closed:
                return False
            self._closed = True
            self._cv.wait_for(lambda: self._in_flight == 0, timeout=timeout)
        return True

    def close_all(self) -> None:
        for st in self._stores:
            st.close()
        self._stores.clear()
