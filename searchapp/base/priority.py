"""Indexing is background work: the thread that syncs asks the OS for a lower priority.

On Linux the nice value is per thread and inherited by the threads it starts later (the math library's
worker pool included), so a sync's threads yield the CPU to interactive searches in the same process
(the GUI) and in other processes (a CLI search beside `searchapp index` / `watch`). Unprivileged code
cannot raise a priority again, so this is done only on threads that do background work.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from typing import Iterator

__all__ = ["BACKGROUND_NICENESS", "lower_thread_priority", "background_adapts", "in_front"]

BACKGROUND_NICENESS = 10  # CFS weight 110 vs 1024 at nice 0: a query gets ~90% of a shared core
_in_front = 0  # open `in_front` blocks: while one is, this process's syncs are what its person waits for
_in_front_lock = threading.Lock()


@contextlib.contextmanager
def in_front() -> Iterator[None]:
    """While it lasts, this process's syncs (on any of its threads) are what the person at the command line waits
    for, and short: `searchapp index --words-only` (decision 0106). They keep the normal priority: at nice 10 on a
    busy 2-core machine (load ~15) 10,000 small files took minutes of waiting for ~20 CPU-seconds, every other
    program going first. Searches still go first the other way: a sync steps aside while one runs
    (library/resources/in_flight.py). Scoped, so a later sync in the same process (a test worker, the window) is background
    work again."""
    global _in_front
    with _in_front_lock:
        _in_front += 1
    try:
        yield
    finally:
        with _in_front_lock:
            _in_front -= 1


def background_adapts() -> bool:
    """Whether background work steps aside (a lower priority, and on a CPU the encoder's threads fitted to what
    other processes leave: base/cpu_share.py); SEARCHAPP_NO_BACKGROUND_PRIORITY=1 keeps both as set (the test
    suite does, so its subprocesses are not starved and its vectors do not depend on the machine's load)."""
    return not os.environ.get("SEARCHAPP_NO_BACKGROUND_PRIORITY")


def lower_thread_priority(niceness: int = BACKGROUND_NICENESS) -> bool:
    """Lower the calling OS thread's priority to `niceness` (never raise it); True when it is that low now."""
    if not sys.platform.startswith("linux") or not hasattr(os, "setpriority"):
        return False  # elsewhere the nice value is per process: lowering it would slow searches too
    if not background_adapts() or _in_front:
        return False
    tid = threading.get_native_id()
    try:
        if os.getpriority(os.PRIO_PROCESS, tid) < niceness:
            os.setpriority(os.PRIO_PROCESS, tid, niceness)
        return True
    except OSError:  # e.g. a sandbox that forbids it: indexing still works, just at normal priority
        return False
