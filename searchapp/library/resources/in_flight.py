"""Searches in flight, so that a sync yields to them: between two steps it waits while one runs.

A lower OS priority (base/priority.py) only ranks the sync behind this machine's other work at the same
level; on a busy machine the search still shares the cores with the sync's threads, and in the same process a
sync thread the OS left waiting can hold the interpreter lock the search needs. So a sync also steps aside:
at each point where it may stop (cancel checks: between files, encoder batches, OCR pages) it waits while a
search runs and for LINGER seconds after (the next search of a burst), up to PAUSE_CAP seconds at a time, so
a person searching without pause slows indexing down but never stops it.

Two signals: a counter for this process (the desktop app, a `watch` serving the command line), and a shared
flock on `<data dir>/searching.lock` for the others (a CLI search beside `searchapp index`). A search never
waits for either: a lock it cannot take at once is simply not announced.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from pathlib import Path
from typing import Callable, Iterator, Optional

from ...base.errors import Cancelled, UnsupportedFileError
from ...base.flock import fcntl
from ...base.safe_open import open_regular_fd
from ...base.progress import CancelToken

__all__ = ["SearchesInFlight", "YieldingCancel", "PAUSE_CAP", "LINGER", "MIN_WORK", "LOCK_NAME"]

LOCK_NAME = "searching.lock"
PAUSE_CAP = 2.0  # seconds a sync waits at one point before it does one more step
# A search that follows within this many seconds (typing, a person paging through queries, a script's loop)
# finds the sync still waiting rather than in the middle of a step it has just begun.
LINGER = 0.3
# Seconds a sync works after a pause before it pauses again: steps that cost next to nothing (an unchanged
# file) go on together instead of one per PAUSE_CAP.
MIN_WORK = 0.2
_POLL = 0.02  # how often a waiting sync looks at the other processes' lock (and at cancel)


class SearchesInFlight:
    """This library's searches in flight (this process's and, through the lock file, other processes')."""

    def __init__(self, data_dir: Path, *, create: bool = True) -> None:
        """`create`: whether a search may make the lock file (not in a read-only library)."""
        self._path = Path(data_dir) / LOCK_NAME
        self._create = create
        self._lock = threading.Lock()
        self._running = 0
        self._fd: Optional[int] = None  # this process's handle, shared-locked while one of its searches runs
        self._probe: Optional[int] = None  # the sync's own handle, to test for other holders
        self._last_seen = -1e9  # monotonic time a search was last seen running
        self._file_checked = -1e9
        self._file_busy = False
        self.waits = 0  # pauses that found a search running (what tests observe)

    # -- the search side -------------------------------------------------------
    @contextlib.contextmanager
    def running(self) -> Iterator[None]:
        """Around one search: announced here and to other processes for as long as it runs."""
        with self._lock:
            self._running += 1
            self._last_seen = time.monotonic()
            if self._running == 1:
                self._announce(True)
        try:
            yield
        finally:
            with self._lock:
                self._running -= 1
                self._last_seen = time.monotonic()
                if self._running == 0:
                    self._announce(False)

    def _announce(self, on: bool) -> None:
        if fcntl is None:
            return
        if on:
            if self._fd is None:
                self._fd = _open(self._path, create=self._create)
            if self._fd is not None:
                try:
                    fcntl.flock(self._fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                except OSError:  # a sync is testing it this instant: this search goes unannounced
                    pass
        elif self._fd is not None:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_UN)
            except OSError:
                pass

    # -- the sync side ---------------------------------------------------------
    def busy(self) -> bool:
        """Whether a search runs now, in this process or (looked at every _POLL seconds) another."""
        if self._running:
            self._last_seen = time.monotonic()
            return True
        now = time.monotonic()
        if now - self._file_checked >= _POLL:
            self._file_checked = now
            self._file_busy = self._other_process_searching()
            if self._file_busy:
                self._last_seen = now
        return self._file_busy

    def _active(self) -> bool:
        return self.busy() or time.monotonic() - self._last_seen < LINGER

    def wait_quiet(self, cap: Optional[float] = None, stop: Optional[Callable[[], bool]] = None) -> float:
        """Wait while a search runs or ended less than LINGER seconds ago, at most `cap` seconds or until
        `stop()` (a cancel); returns the seconds waited."""
        if not self._active():
            return 0.0
        self.waits += 1
        start = time.monotonic()
        deadline = start + (PAUSE_CAP if cap is None else cap)
        while self._active() and not (stop is not None and stop()):
            left = deadline - time.monotonic()
            if left <= 0:
                break
            # Polled, not woken by each search's end: waking this low-priority thread would hand it the
            # interpreter lock between two searches of a burst, and the next search would wait for it.
            time.sleep(min(left, _POLL * 2.5))
        return time.monotonic() - start

    def _other_process_searching(self) -> bool:
        if fcntl is None:
            return False
        if self._probe is None:
            self._probe = _open(self._path, create=False)
            if self._probe is None:
                return False  # no search has announced itself here yet
        try:
            fcntl.flock(self._probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        except OSError:
            return False
        fcntl.flock(self._probe, fcntl.LOCK_UN)
        return False

    def close(self) -> None:
        with self._lock:  # not while a search is releasing its lock: the number could be another file's by then
            for fd in (self._fd, self._probe):
                if fd is not None:
                    with contextlib.suppress(OSError):
                        os.close(fd)
            self._fd = self._probe = None


def _open(path: Path, *, create: bool) -> Optional[int]:
    """A handle on the lock file (made private when this process may create it), or None when there is none."""
    try:  # only a regular file: a FIFO put there would block a plain open() forever
        return open_regular_fd(path, os.O_RDWR | os.O_CREAT if create else os.O_RDONLY, 0o600)
    except UnsupportedFileError:
        return None  # not a lock file: searches go unannounced, syncs do not wait for them
    except OSError:
        if create:  # a read-only library: its searches are announced only if the file is there already
            return _open(path, create=False)
        return None


class YieldingCancel(CancelToken):
    """The sync's cancel token: cancelled exactly when the caller's is, and each look at it first waits while
    a search runs (every cancel check of a sync sits between two steps it may safely stop at)."""

    def __init__(self, inner: Optional[CancelToken], searches: SearchesInFlight, cap: Optional[float] = None) -> None:
        super().__init__()
        self.inner, self.searches = inner, searches
        self._cap = PAUSE_CAP if cap is None else cap
        self._resumed = time.monotonic()  # when the sync last went back to work

    def cancel(self) -> None:
        super().cancel()
        if self.inner is not None:
            self.inner.cancel()

    def _stopped(self) -> bool:
        return self._event.is_set() or (self.inner is not None and self.inner.cancelled)

    def _step_aside(self) -> None:
        if time.monotonic() - self._resumed >= MIN_WORK and self.searches.wait_quiet(self._cap, self._stopped):
            self._resumed = time.monotonic()

    @property
    def cancelled(self) -> bool:
        self._step_aside()
        return self._stopped()

    def check(self) -> None:
        self._step_aside()
        if self._stopped():
            raise Cancelled("cancelled")
