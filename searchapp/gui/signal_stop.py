"""A stop asked from outside the window (Ctrl+C, `kill`, a closed terminal: cli/gui_signals.py watches those)
closes the application as File → Quit and resume next time does, without a question: nobody need be at the
screen, and a signal must never wait on a dialog (decision 0158).

The request comes on another thread; a Qt signal queued to the GUI thread carries it to the window."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Callable, Protocol

from PySide6.QtCore import QObject, Qt, Signal, Slot
from PySide6.QtWidgets import QApplication

if TYPE_CHECKING:
    from .main_window import MainWindow

__all__ = ["StopRequests", "SignalStop"]


class StopRequests(Protocol):
    def when_asked(self, stop: Callable[[], object]) -> None:
        """Call `stop` (from any thread) once a stop is asked; at once when one was asked already."""


class SignalStop(QObject):
    """Lives in the GUI thread: `asked`, emitted from any thread, runs stop() here."""

    asked = Signal()

    def __init__(self, app: QApplication, win: MainWindow) -> None:
        super().__init__(app)
        self.app, self.win = app, win
        # Queued even when emitted on the GUI thread (a stop asked before the window was built): it then runs
        # once the event loop does, after the window is shown.
        self.asked.connect(self.stop, Qt.ConnectionType.QueuedConnection)

    def listen(self, requests: StopRequests) -> None:
        requests.when_asked(self.asked.emit)

    @Slot()
    def stop(self) -> None:
        if self.win.quit_now():
            _say("searchapp: the indexing stopped at its last batch; it goes on when searchapp next starts")
        self.app.closeAllWindows()  # the duplicates window, the files not indexed
        self.app.quit()  # and a question asked with exec() (its own event loop) returns


def _say(line: str) -> None:
    try:
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError):  # the terminal is gone (a hang-up): the window still closes
        pass
