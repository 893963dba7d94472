"""Another process wrote the library (a `searchapp index` in a terminal, a `searchapp watch`): the window
notices within a few seconds and shows what is there now — the status and counts at once, the results and
saved searches once the other writer has paused, so a long sync elsewhere does not reset the list every tick.

It looks only at the database files' size and time (library/resources/changed_on_disk.py: two stat calls, no SQL) every
POLL_MS while this window writes nothing; its own writes announce their changes themselves. On a shared library
the other writers are other machines too, and nothing local changes: it reads the library's write generation
instead, one indexed row, on the read pool (never on this thread: the server may be slow or gone), one read at a
time (decision 0138).
"""

from __future__ import annotations

import time
from typing import Callable, Optional

from PySide6.QtCore import QObject, QTimer

from ..library.resources.changed_on_disk import disk_mark
from ..library.shared import SharedLibrary
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
        self._marked = mark is not None  # a mark given: read here, whatever the library (tests)
        self.mark: Optional[tuple[Optional[int], ...]] = None
        self._reading = False  # a shared library's generation is being read
        self.lost: Optional[str] = None  # why the last read of a shared library's generation failed
        self.moving_since: Optional[float] = None  # the other writer's first change not yet shown in the results
        self.noticed = 0  # changes announced (tests wait on it)
        self.timer = QTimer(self, interval=POLL_MS)
        self.timer.timeout.connect(self.check)

    def start(self) -> None:
        if self._remote():
            self._read_mark(lambda got: setattr(self, "mark", got))
        else:
            self.mark = self._mark_now()
        self.timer.start()

    def _remote(self) -> bool:
        return not self._marked and isinstance(self.session.library, SharedLibrary)

    def _read_mark(self, then: Callable[[tuple[Optional[int], ...]], None]) -> None:
        """The shared library's generation, read on the read pool; `then` gets it on this thread. A failed read
        is said once in the status bar (the next read connects again) and polled on."""
        if self._reading:
            return
        self._reading = True
        lib = self.session.library

        def failed(exc: BaseException, tb: str) -> None:
            if self.lost is None:  # once, until a read succeeds again; the store connects again at the next one
                why = str(exc).split(";")[0]  # the store's line goes on about a batch: none is in flight here
                self.tools.say(f"Cannot follow the other machines' changes now: {why}", 30000)
            self.lost = str(exc)

        def read(got: tuple[Optional[int], ...]) -> None:
            self.lost = None
            then(got)

        self.tools.runner.submit(lambda p, c: (lib.generation(),), name="other writers", on_success=read,
                                 on_error=failed, on_done=lambda: setattr(self, "_reading", False))

    def stop(self) -> None:
        self.timer.stop()

    def check(self) -> None:
        if self.tools.runner.busy_writing():
            return  # this window's own write: its Changes refresh everything when it ends
        if self._remote():
            self._read_mark(self.compare)
        else:
            self.compare(self._mark_now())

    def compare(self, mark: tuple[Optional[int], ...]) -> None:
        if self.mark is None:  # the first mark read (a shared library's first read failed): nothing to compare yet
            self.mark = mark
            return
        if self.tools.runner.busy_writing():
            return  # a write of this window's began while a shared library's mark was being read: its own change
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
            # what this window just wrote is not another process's
            if self._remote():
                self._read_mark(lambda got: setattr(self, "mark", got))
            else:
                self.mark = self._mark_now()
