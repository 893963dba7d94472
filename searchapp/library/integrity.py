"""SQLite's quick_check for `status`, at most once a minute per open library.

Why: it reads every page of the database (1.35 s at a million passages), and the window asks for the status
every 2 s while another process writes (gui/other_writers.py): a verdict at most a minute old serves its label
as well. A one-shot `searchapp status` opens the library and so runs it, as before.
"""

from __future__ import annotations

import threading
import time
from typing import Callable, Optional

from ..store import Store

__all__ = ["IntegrityCheck", "INTERVAL_S"]

INTERVAL_S = 60.0


class IntegrityCheck:
    def __init__(self, interval: float = INTERVAL_S, clock: Callable[[], float] = time.monotonic) -> None:
        self._interval, self._clock = interval, clock
        self._lock = threading.Lock()
        self._verdict: Optional[bool] = None
        self._when = 0.0

    def ok(self, store: Store) -> bool:
        """Whether `store` passed its quick_check, run now unless it ran within the interval."""
        with self._lock:  # two status reads at once check once
            now = self._clock()
            if self._verdict is None or now - self._when >= self._interval:
                self._verdict, self._when = store.integrity_ok(), now
            return self._verdict
