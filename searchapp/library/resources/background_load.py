"""The vector index opened on a thread of its own, so that a search arriving meanwhile answers by words.

hnswlib's copy of the graph into its own memory holds the interpreter lock (ann/hnsw_state.py: 0.76 s at a
million vectors; its `load_index` held it for the whole parse, 1.9-3.4 s), so meanwhile no other Python thread
moves, a words search included. What runs beside a search is the rest: the checksum (zlib lets go of the lock),
the label scan and the reading of the file. So a load with a
deadline (a one-shot `searchapp search`, which answers and exits) looks at the clock before it parses: when the
checksum's time says the parse would end after the deadline, it stops there, the waiting search answers by words
at once, and the lock is never held past the deadline. A load without one (the window, `watch`) always goes on.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Callable, Optional

__all__ = ["BackgroundLoad", "LoadAbandoned", "READ_FACTOR"]

log = logging.getLogger(__name__)

# Seconds of parsing (and of listing the labels after it) per second of checksum, measured on 2 shared cores with
# AVX-512: 3.7 at 200k vectors (checksum 0.20 s, parse 0.74 s; load 9.6) and 3.8 at 1M (0.81 s; 2.9 s + 0.1 s; load
# 6.5), but 8.4 for a graph of 1M at load 9.7 (0.93 s; 6.9 s + 1.0 s): a busy machine slows the parse more than the
# checksum. 5 leaves that room near the deadline. A cold disk makes the checksum slower and the parse (of a file
# then cached) no slower, which errs towards answering by words.
READ_FACTOR = 5.0


class LoadAbandoned(Exception):
    """The load stopped before parsing: it could not be ready by its deadline."""


class BackgroundLoad:
    """One load of the vector index on a daemon thread. `load(before_read)` opens the index (IndexKeeper.index);
    `on_done(loaded)` runs on that thread when it ends, loaded or not."""

    # Tests set this: called on the loading thread before the index is opened, so a test holds the load there
    # (an event it controls) and searches meanwhile, with no timing involved.
    hold: Optional[Callable[[], None]] = None

    def __init__(self, load: Callable[[Callable[[float], None]], bool], *, deadline: Optional[float] = None,
                 on_done: Optional[Callable[[bool], None]] = None) -> None:
        self._load, self._on_done = load, on_done
        self.deadline = None if deadline is None else time.monotonic() + deadline
        self.done = threading.Event()
        self.abandoned = False  # stopped before parsing (the deadline), or closed before it began
        self.failed = False  # the load raised: a search opens the index itself and sees the error
        self._closing = False
        self._thread = threading.Thread(target=self._run, name="searchapp-index-load", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        """Nobody needs the index any more (the library is closing): stop before parsing if not parsing yet."""
        self._closing = True

    def wait(self, seconds: float) -> bool:
        """Wait at most `seconds` for the load; True when a search may use the index now (loaded, or the load
        failed and opening it again says why), False when it must answer by words (still loading, or given up)."""
        self.done.wait(max(0.0, seconds))
        return self.done.is_set() and not self.abandoned

    def _before_read(self, checksum_seconds: float) -> None:
        if self._closing:
            raise LoadAbandoned("closed")
        if self.deadline is not None and time.monotonic() + READ_FACTOR * checksum_seconds > self.deadline:
            raise LoadAbandoned("past its deadline")

    def _run(self) -> None:
        loaded = False
        try:
            hold = BackgroundLoad.hold
            if hold is not None:
                hold()
            if self._closing:
                raise LoadAbandoned("closed")
            loaded = self._load(self._before_read)
        except LoadAbandoned as why:
            self.abandoned = True
            log.info("vector index load stopped before parsing: %s", why)
        except BaseException:  # on a daemon thread; the next search opens the index and says why
            self.failed = True
            log.info("background load of the vector index failed", exc_info=True)
        finally:
            self.done.set()
            if self._on_done is not None:
                try:
                    self._on_done(loaded)
                except Exception:  # a front end's callback must not kill the thread silently
                    log.exception("index loaded callback failed")
