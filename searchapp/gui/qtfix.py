"""A guard against a reference-count bug of PySide6 6.12.0 on Python 3.11.

There, every call of a void Qt method from Python gives back None without taking a reference, and every
Signal.emit() does the same with True (measured: setObjectName x1000 -> None's count -1000; emit -> True's
count -1). Python 3.12+ makes both objects immortal, so nothing happens there; on 3.11 the app aborts with
"deallocating None" after a few thousand calls (the indexing benchmark hit it within a minute).

None and True are static singletons that are never freed, so giving them a huge reference count is what
3.12 does by design. This runs only when a probe shows the bug, and is a no-op otherwise. Pinning a fixed
PySide6 or moving to Python 3.12 makes it unnecessary.
"""

from __future__ import annotations

import ctypes
import sys

__all__ = ["apply", "applied"]

_BIG = 1 << 40  # far beyond any number of calls a session makes
applied = False


def _probe() -> tuple[bool, bool]:
    from PySide6.QtCore import QObject, Signal

    class _P(QObject):
        s = Signal()

    p = _P()
    before = sys.getrefcount(None)
    for _ in range(64):
        p.setObjectName("probe")
    none_bug = sys.getrefcount(None) <= before - 32
    before = sys.getrefcount(True)
    for _ in range(64):
        p.s.emit()
    true_bug = sys.getrefcount(True) <= before - 32
    return none_bug, true_bug


def apply() -> bool:
    """Detect the bug once and, when present, make None and True effectively immortal. Returns whether it did."""
    global applied
    if applied or sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return applied
    none_bug, true_bug = _probe()
    for obj, bug in ((None, none_bug), (True, true_bug)):
        if bug:
            ctypes.c_ssize_t.from_address(id(obj)).value += _BIG  # ob_refcnt is the first field of every object
    applied = none_bug or true_bug
    return applied
