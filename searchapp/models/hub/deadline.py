"""The deadline of one whole hub request: the timeout bounds each wait for bytes, so a hub sending one byte
every few seconds (a slowloris) would hold a pull for ever without it. A request that should bring n bytes
gets max(timeout, n / minimum rate) from its start, status line and headers included; then its socket is
shut down, whatever http.client is waiting for. Used by http.py, which opens the connections.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from typing import Optional

from ...base.errors import ConfigError
from ...base.terminal import printable

__all__ = ["HUB_MIN_RATE", "RequestDeadline", "hub_min_rate"]

HUB_MIN_RATE = 50_000  # bytes per second; $SEARCHAPP_HUB_MIN_RATE_KB (kilobytes) overrides it


def hub_min_rate() -> float:
    """Bytes per second a request must average once its timeout has passed: $SEARCHAPP_HUB_MIN_RATE_KB × 1000."""
    raw = os.environ.get("SEARCHAPP_HUB_MIN_RATE_KB", "").strip()
    if not raw:
        return float(HUB_MIN_RATE)
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 < value <= 10_000_000:
        raise ConfigError(f"SEARCHAPP_HUB_MIN_RATE_KB must be a number of kilobytes per second (like 50), "
                          f"not {printable(raw)!r}.")
    return value * 1000


class RequestDeadline:
    """The deadline of the one request a HubClient has in flight (its requests run one after another).

    A timer thread shuts the request's socket down when time is up: a blocked read then ends at once, and
    `expired` tells the reader why its connection broke."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sock: Optional[socket.socket] = None
        self._timer: Optional[threading.Timer] = None
        self._generation = 0
        self.expired = False
        self.at = 0.0  # time.monotonic() when the request must be over
        self.seconds = 0.0

    def start(self, seconds: float) -> None:
        self.stop()
        with self._lock:
            self._generation += 1
            self.expired = False
            self.seconds = seconds
            self.at = time.monotonic() + seconds
            self._timer = threading.Timer(seconds, self._expire, (self._generation,))
            self._timer.daemon = True
            self._timer.start()

    def attach(self, sock: socket.socket) -> None:
        """Each connection the request opens (a redirect opens another); cut at once if time is up."""
        with self._lock:
            self._sock = sock
            if self.expired:
                _cut(sock)

    def passed(self) -> bool:
        return self.expired or time.monotonic() > self.at

    def stop(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            self._sock = None

    def _expire(self, generation: int) -> None:
        with self._lock:
            if generation != self._generation or self._timer is None:  # a later request's, or stopped
                return
            self.expired = True
            if self._sock is not None:
                _cut(self._sock)


def _cut(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)  # wakes a recv blocked in another thread; close() would not
    except OSError:
        pass  # already closed by its reader
