"""A file that takes long to read, named in the progress while it is read: "reading big-scan.pdf, 40 s…".

A sync reports each file as it begins to read it (words_pass.py, the OCR step), and nothing until the next one: a
400-page scan OCR'd for minutes, or a huge PDF, left the command line's bar and the window's strip standing still on
one count, and a person thought it hung and stopped it. SlowRead stands between the sync and its progress: once the
last report of a file has stood SLOW_AFTER_S, a thread of its own gives that report again every EVERY_S with the
file's name and the seconds so far (Progress.slow), until the next report comes.

Every report goes through one lock, the sync's own and the ticker's: no line about a file comes after the next
report (the command line's bar is drawn by one report at a time).
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from typing import Callable, Optional

from ...base.progress import Progress, ProgressFn

__all__ = ["SlowRead", "SLOW_AFTER_S", "EVERY_S", "slow_text"]

log = logging.getLogger(__name__)

SLOW_AFTER_S = 5.0  # a file read in less is never named: most take milliseconds, a long PDF a second or two
EVERY_S = 1.0  # how often the seconds so far are said again (the window shows the newest report every 0.1 s)
# The stages that report a file as they begin to read it (its name the message), and what is done to it
DOING = {"extracting": "reading {}", "ocr": "reading {} by OCR", "rereading": "reading {} again"}


def slow_text(stage: str, name: str, seconds: float) -> str:
    """"reading big-scan.pdf, 40 s…", "reading big-scan.pdf by OCR, 2 min 05 s…": the seconds tick, so it is seen
    to move."""
    s = int(seconds)
    took = f"{s} s" if s < 60 else f"{s // 60} min {s % 60:02d} s" if s < 3600 else \
        f"{s // 3600} h {s % 3600 // 60:02d} min"
    return f"{DOING[stage].format(name)}, {took}…"


class SlowRead:
    """The sync's ProgressFn: `progress` (None: nothing to tell) with a file read for long named. Used as a context
    manager, whose end stops the ticker. `clock` and `ticking` are the tests': without the thread they call `tick`."""

    def __init__(self, progress: Optional[ProgressFn], *, clock: Callable[[], float] = time.monotonic,
                 after_s: float = SLOW_AFTER_S, every_s: float = EVERY_S, ticking: bool = True) -> None:
        self.progress, self.clock, self.after_s, self.every_s = progress, clock, after_s, every_s
        self.ticking = ticking and progress is not None
        self._lock = threading.Lock()
        self._last: Optional[tuple[Progress, float]] = None  # a file's report and when it came, until the next one
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None

    def __call__(self, p: Progress) -> None:
        if self.progress is None:
            return
        with self._lock:
            self._last = (p, self.clock()) if p.stage in DOING and p.message else None
            self.progress(p)
        if self._last is not None and self.ticking and self._thread is None:
            self._thread = threading.Thread(target=self._tick_on, name="slow-read", daemon=True)
            self._thread.start()

    def tick(self) -> None:
        """One look: the file whose report has stood `after_s`, reported again with its name and seconds."""
        with self._lock:
            if self._last is None or self.progress is None:
                return
            p, came = self._last
            took = self.clock() - came
            if took >= self.after_s:
                self.progress(dataclasses.replace(p, slow=slow_text(p.stage, p.message, took)))

    def _tick_on(self) -> None:
        while not self._stop.wait(self.every_s):
            try:
                self.tick()
            except Exception:  # a front end's error must not stop the sync: its next report draws afresh
                log.debug("a slow read's report failed", exc_info=True)

    def __enter__(self) -> "SlowRead":
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
