"""Another process wrote the library (a `searchapp index` in a terminal, a `searchapp watch`): the window
notices within a few seconds and shows what is there now — the status and counts at once, the results and
saved searches once the other writer has paused, so a long sync elsewhere does not reset the list every tick.

It looks only at the database files' size and time (library/resources/changed_on_disk.py: two stat calls, no SQL) every
POLL_MS while this window writes nothing; its own writes announce their changes themselves.
"""

from __future__ import annotations

import time
from typing import Callable, Optional

from PySide6.QtCore import QObject, QTimer

from ..library.resources.changed_on_disk import disk_mark
from .changes import Changes
from .library_session import LibrarySession
from .window_tools import WindowTools

__all__ = ["OtherWriters", "POLL_MS", "BUSY_REFRESH_S"]

POLL_MS = 2000
BUSY_REFRESH_S = 20.0  # while another process keeps writing, the results follow at most this often


class OtherWriters(QObject):
    def __init__(self, tools: WindowTools, session: LibrarySession,
                 mark: Optional[Callable[[], tuple[Optional[int], ...]]] = None) -> None:
        super().__init__(tools.parent)
        self.tools, self.session = tools, session
        self._mark_now = mark or (lambda: disk_mark(self.session.library.data_dir))
        self.mark: Optional[tuple[Optional[int], ...]] = None
        self.moving_since: Optional[float] = None  # the other writer's first change not yet shown in the results
        self.noticed = 0  # changes announced (tests wait on it)
        self.timer = QTimer(self, interval=POLL_MS)
        self.timer.timeout.connect(self.check)

    def start(self) -> None:
        self.mark = self._mark_now()
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()

    def check(self) -> None:
        if self.tools.runner.busy_writing():
            return  # this window's own write: its Changes refresh everything when it ends
        mark = self._mark_now()
        now = time.monotonic()
        if mark != self.mark:
            self.mark = mark
            if self.moving_since is None:
                self.moving_since = now
            if now - self.moving_since < BUSY_REFRESH_S:
                self._announce(Changes(elsewhere=True))  # the counts now; the results when it pauses
                return
        elif self.moving_since is None:
            return
        self.moving_since = None  # it paused (one quiet tick), or has written for a while: show everything
        self._announce(Changes(roots=True, files=True, elsewhere=True))

    def _announce(self, changes: Changes) -> None:
        self.noticed += 1
        self.tools.changed(changes)

    def on_changes(self, changes: Changes) -> None:
        if not changes.elsewhere and (changes.index or changes.searches):
            self.mark = self._mark_now()  # what this window just wrote is not another process's
