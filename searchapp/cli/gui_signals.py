"""Ctrl+C (SIGINT), `kill` (SIGTERM) and a closed terminal (SIGHUP) close `searchapp gui` as File → Quit does
(decision 0158): a sync running stops at its next batch and resumes at the next start, the warm socket is
removed, and the command exits 0. A second signal while it closes ends the process at once (130).

Python runs a signal handler only between bytecodes of the main thread, and a Qt window's main thread sits in
C++: in the event loop, and while it closes, in the wait for the sync's batch (JobRunner.shutdown). A QTimer
waking the interpreter, or a QSocketNotifier on signal.set_wakeup_fd, both need the event loop; neither sees a
second Ctrl+C during that wait. So the C-level handler's wakeup byte (set_wakeup_fd, written the moment the
signal comes) is read by a thread of ours instead: it hands the first signal to the window (a Qt signal, queued
to the GUI thread) and ends the process on the second, whatever the GUI thread is doing. No Qt here: the watch
starts before Qt is imported, so a signal while the window is built is kept and closes it once it is shown.
"""

from __future__ import annotations

import signal
import socket
import sys
import threading
from types import FrameType
from typing import Any, Callable, Optional

from ..base.progress import CancelToken
from .abort import ABORTED, end_now
from .hang_up import leave_terminal

__all__ = ["WindowSignals", "ABORTED"]

SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP")  # Windows has no SIGHUP


class WindowSignals:
    """The stop signals of a `searchapp gui` process, from install() to close(). `cancel`: the command's token,
    set already when cli/main.py's Ctrl+C handler saw a signal before this was installed (that one counts as the
    first)."""

    def __init__(self, cancel: CancelToken) -> None:
        self.cancel = cancel
        self._lock = threading.Lock()
        self._stop: Optional[Callable[[], object]] = None  # what closes the window (when_asked)
        self._asked = cancel.cancelled
        self._count = 1 if cancel.cancelled else 0
        self._before: dict[int, Any] = {}  # each signal's handler before ours, put back by close()
        self._wakeup_before = -1
        self._writer: Optional[socket.socket] = None

    def install(self) -> bool:
        """Watch the stop signals; False where they cannot be (not the main thread: embedded use)."""
        try:
            reader, writer = socket.socketpair()  # a socket, not a pipe: what set_wakeup_fd takes on Windows too
        except OSError:  # Windows builds it on a loopback connection a policy may refuse: the signals stay as they are
            return False
        writer.setblocking(False)  # set_wakeup_fd's rule: a signal must never block on a full buffer
        try:
            # The wakeup first: a signal between the two would run the no-op handler with no byte written, and be lost
            self._wakeup_before = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
            for name in SIGNALS:
                number = getattr(signal, name, None)
                # A hang-up the caller ignores stays ignored: `nohup searchapp gui &` outlives its terminal.
                if number is None or (name == "SIGHUP" and signal.getsignal(number) is signal.SIG_IGN):
                    continue
                self._before[number] = signal.signal(number, _noted)
        except ValueError:  # not the main thread (embedded use): set_wakeup_fd refused before anything was set
            self._put_back()
            reader.close()
            writer.close()
            return False
        self._writer = writer
        threading.Thread(target=self._watch, args=(reader,), name="searchapp-signals", daemon=True).start()
        return True

    def when_asked(self, stop: Callable[[], object]) -> None:
        """`stop` closes the window: called on the watching thread at the first signal, or here at once when one
        came before the window was there. Exactly once either way."""
        with self._lock:
            self._stop = stop
            asked = self._asked
        if asked:
            stop()

    def close(self) -> None:
        """The window is closed: the signals get their handlers back and the watching thread ends."""
        if self._writer is None:
            return
        try:
            signal.set_wakeup_fd(self._wakeup_before)
            self._put_back()
        except ValueError:  # not the main thread: the process is ending anyway
            pass
        self._writer.close()  # the reader sees its end: the thread returns
        self._writer = None

    def _put_back(self) -> None:
        for number, handler in self._before.items():
            signal.signal(number, handler if handler is not None else signal.SIG_DFL)
        self._before.clear()

    def _watch(self, reader: socket.socket) -> None:
        with reader:
            while True:
                try:
                    data = reader.recv(64)
                except OSError:
                    return
                if not data:
                    return
                for number in data:
                    if number in self._before:  # another handler's signal wakes the fd too: not ours to act on
                        self._signalled(number)

    def _signalled(self, number: int) -> None:
        self._count += 1
        if self._count > 1:
            # no clean-up: that is what the second signal asks for (a leftover warm.sock is removed by the next
            # start, and a search meanwhile finds nobody behind it and opens the library)
            end_now("searchapp: ended at once")
        if number == getattr(signal, "SIGHUP", None):
            leave_terminal()
        _say("searchapp: closing the window (Ctrl+C again to end at once)")
        self.cancel.cancel()
        with self._lock:
            self._asked = True
            stop = self._stop
        if stop is not None:
            stop()


def _noted(signum: int, frame: Optional[FrameType]) -> None:
    """Python's own handler: nothing to do. It is there so that the C-level one writes the wakeup byte, which
    the watching thread acts on."""


def _say(line: str) -> None:
    try:
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError):  # an output that is gone: stopping matters, the message does not
        pass
