"""The worker thread every hub request runs on, so that Cancel (or Ctrl+C) is noticed even while a socket read
is stuck: the caller's thread only waits, watching the cancel token. Used by plan.py and download.py."""

from __future__ import annotations

import threading
from typing import Callable, TypeVar

from ...base.errors import Cancelled
from ...base.progress import CancelToken

__all__ = ["STALL_GRACE_S", "run_cancellable"]

STALL_GRACE_S = 2.0  # after Cancel, how long a request stuck in a socket read may take to notice
T = TypeVar("T")


def run_cancellable(fn: Callable[[], T], cancel: CancelToken, name: str) -> T:
    """Run `fn` on a daemon thread and wait for it, watching `cancel` every 0.1 s.

    Every request has a timeout, and `fn` checks `cancel` between chunks; a request stuck waiting for
    bytes is abandoned after STALL_GRACE_S (it can only write into the staging folder, which goes)."""
    outcome: dict[str, object] = {}

    def work() -> None:
        try:
            outcome["value"] = fn()
        except BaseException as exc:  # handed to the caller's thread
            outcome["error"] = exc

    thread = threading.Thread(target=work, name=name, daemon=True)
    thread.start()
    try:
        while thread.is_alive():
            thread.join(0.1)
            if cancel.cancelled:
                thread.join(STALL_GRACE_S)
                raise Cancelled("download cancelled")
    except BaseException:
        cancel.cancel()  # a KeyboardInterrupt here: the worker stops at its next check
        raise
    err = outcome.get("error")
    if err is not None:
        raise err  # type: ignore[misc]
    return outcome["value"]  # type: ignore[return-value]
