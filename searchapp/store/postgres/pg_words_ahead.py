"""A shared hybrid search reads its words' postings on a second connection while the query is embedded and
pgvector searches: two server backends, two cores, instead of one statement after the other.

BM25 on a shared library reads every posting of each query word (pg_lexical.py): at a million passages ~40 ms
for three common words, about as long as pgvector's search before it, and the two never needed each other's
answer (the pipeline asks the BM25 of the dense hits, but that is a lookup in the tables read here). The tables
are also read once a search: a search by files asks the words again with a larger limit when the first top
held too few files (grouping.widen_to_files), and the inspector's missing scores ask them a third time.

The connection is this library's own reader (made at the first hybrid search, closed with the store), not
`PgStore.sibling`: the sibling holds a transaction for the whole of a duplicates run, and a search beside it
must not wait for that. A reader that cannot connect or fails mid-read only means the search reads its words
on its own connection, as before; one that could not connect is not tried again for RETRY_S (said once in the
log), so a server at its connection limit does not make every search wait for a connect. Two searches at once
share the reader: the second one's words wait for the first one's.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Callable, Iterator, Optional, Protocol, Sequence

import numpy as np

from ...base.errors import StoreError

__all__ = ["WordsAhead", "Tables", "READ_AHEAD"]

log = logging.getLogger(__name__)

RETRY_S = 60.0  # a reader that could not connect is tried again after this long
READ_AHEAD = True  # off: every search reads its words on its own connection (benchmarks compare the two)
Tables = list[tuple[np.ndarray, np.ndarray]]  # pg_lexical's (passage ids ascending, their BM25) per table
Key = tuple[str, tuple[str, ...]]


class Reader(Protocol):
    """A connection of its own to the library (a PgStore)."""

    def read_tables(self, query: str, prefixes: Sequence[str]) -> "Tables": ...

    def close(self) -> None: ...


class _Search:
    """One search's words: their tables once read (or being read by the reader)."""

    def __init__(self, key: Key, future: Optional["Future[Tables]"]) -> None:
        self.key = key
        self.future = future
        self.tables: Optional[Tables] = None

    def get(self, read_here: Callable[[], Tables]) -> Tables:
        if self.tables is None:
            got = None
            if self.future is not None:
                # The reader lost, or cancelled by a close: this connection reads them (and says why, if it fails)
                with contextlib.suppress(Exception):
                    got = self.future.result()
                self.future = None
            self.tables = got if got is not None else read_here()
        return self.tables


class WordsAhead:
    """The words' tables of the search running on each thread (PgLexical._tables asks `tables_of`)."""

    def __init__(self, connect: Callable[[], Reader]) -> None:
        self._connect = connect  # a new connection to the same library
        self._local = threading.local()  # a window may search on two threads at once: each its own search
        self._lock = threading.Lock()
        self._reader: Optional[Reader] = None
        self._failed_at: Optional[float] = None  # when the reader last could not connect
        self._pool: Optional[ThreadPoolExecutor] = None
        self._closed = False

    @contextlib.contextmanager
    def search(self, query: str, prefixes: Sequence[str], ahead: bool) -> Iterator[None]:
        """The words of `query` are read at most once in this block; `ahead`: from now on, on the reader."""
        key = (query, tuple(prefixes))
        outer = getattr(self._local, "search", None)
        self._local.search = _Search(key, self._submit(key) if ahead and READ_AHEAD else None)
        try:
            yield
        finally:
            self._local.search = outer

    def tables_of(self, query: str, prefixes: Sequence[str], read_here: Callable[[], Tables]) -> Tables:
        found: Optional[_Search] = getattr(self._local, "search", None)
        if found is None or found.key != (query, tuple(prefixes)):
            return read_here()
        return found.get(read_here)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            pool, reader = self._pool, self._reader
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
        if reader is not None:
            reader.close()

    def _submit(self, key: Key) -> Optional["Future[Tables]"]:
        with self._lock:
            if self._closed or (self._failed_at is not None and time.monotonic() - self._failed_at < RETRY_S):
                return None
            if self._pool is None:
                self._pool = ThreadPoolExecutor(1, thread_name_prefix="searchapp-words-ahead")
            return self._pool.submit(self._read, key)

    def _read(self, key: Key) -> Tables:
        """On the worker thread: the tables of `key` on the reader, connected first if need be (outside the
        lock: a connect may take seconds, and a search or close must not wait for it)."""
        with self._lock:
            reader = self._reader
        if reader is None:
            try:
                reader = self._connect()
            except Exception as exc:  # whatever it is, the search's own connection meets it too and says it
                with self._lock:
                    if self._failed_at is None:
                        log.warning("searches read their words on one connection: %s", exc)
                    self._failed_at = time.monotonic()
                raise
            with self._lock:
                if self._closed:
                    reader.close()
                    raise StoreError("closed")
                self._reader, self._failed_at = reader, None
        return reader.read_tables(*key)
