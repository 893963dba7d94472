"""Dates as the library stores them: int64 nanoseconds since the epoch (files.mtime_ns and files.date_ns).

A date a file carries is the file's word, not ours: a message dated in the year 1000 or 9999, or a file
touched to the year 2400, is no reason to stop a sync. Int64 nanoseconds reach from 1677-09-21 to
2262-04-11 (the filters' FIRST_DAY..LAST_DAY lie inside). An entry's own date outside that is dropped, so the
entry keeps its file's date, rather than clamped to an edge where it would sort as the newest; a file's
mtime, which every entry needs, is clamped.
"""

from __future__ import annotations

import datetime as _dt
from typing import Optional

__all__ = ["FIRST_NS", "LAST_NS", "date_ns", "storable_ns", "clamped_ns"]

_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
FIRST_NS = int((_dt.datetime(1678, 1, 1, tzinfo=_dt.timezone.utc) - _EPOCH).total_seconds()) * 10**9
LAST_NS = int((_dt.datetime(2262, 1, 1, tzinfo=_dt.timezone.utc) - _EPOCH).total_seconds()) * 10**9 - 1


def storable_ns(ns: object) -> Optional[int]:
    """`ns` when it is an int within FIRST_NS..LAST_NS, else None."""
    if isinstance(ns, bool) or not isinstance(ns, int):
        return None
    return ns if FIRST_NS <= ns <= LAST_NS else None


def clamped_ns(ns: int) -> int:
    """A file's mtime within FIRST_NS..LAST_NS: a file touched to the year 2400 (ext4 holds it) still has one.
    The scan and the store both clamp, so the time a sync compares is the time it stored."""
    return min(max(int(ns), FIRST_NS), LAST_NS)


def date_ns(when: Optional[_dt.datetime]) -> Optional[int]:
    """`when` in nanoseconds since the epoch (a naive time taken as UTC), or None when it is out of range."""
    if when is None:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=_dt.timezone.utc)
    try:
        delta = when - _EPOCH  # exact, unlike timestamp() * 1e9 (a float of 1e18 ns is off by ~100 ns)
    except (OverflowError, ValueError):  # the offset pushed it past year 1 or 9999
        return None
    return storable_ns((delta.days * 86_400 + delta.seconds) * 10**9 + delta.microseconds * 1000)
