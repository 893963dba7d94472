"""How fast a long job goes and how long it has left, from what it reported: one estimator for the command
line's progress line, the window's strip and `status` (issue 41: "an honest time left").

The rate is the work done over the last reports (at least RECENT reports, and back far enough to span
MIN_SPAN_S), so a steady rate gives the exact time left, a change of rate is followed within RECENT reports,
and one slow batch moves it little. Before EVIDENCE reports spanning MIN_SPAN_S it says nothing: an early
figure from one batch (models still warming up, a first short file) misleads more than none. Time left counts
down between reports (work is reported per batch, a CPU batch can take seconds).

Every time is the caller's (`now`), so tests drive a clock of their own.
"""

from __future__ import annotations

from collections import deque
from typing import Optional

__all__ = ["RateEstimator", "RECENT", "EVIDENCE", "MIN_SPAN_S", "PAUSED_STAGES", "format_rate", "format_left"]

RECENT = 8  # reports the rate is taken over (the newest ones)
EVIDENCE = 3  # reports with progress before any rate is shown
MIN_SPAN_S = 10.0  # seconds those reports must span (further back if RECENT reports span less)
_KEPT = 256  # reports kept to reach MIN_SPAN_S when they come fast (a GPU reports many a second)
# Stages in which a job stands still while something else works (a writer handover: library/sync/handover.py's
# WAITING). Its wait is no measure of the job's pace: a window spanning a 300 s wait made 64 passages/s read 6/s
# and ten times the time left, for the next RECENT reports, and that rate was saved for `status`. No report says
# when the wait ended (the next one comes a batch later), so the gap cannot be cut out exactly: every estimator
# fed such a report starts over.
PAUSED_STAGES = frozenset({"waiting"})


class RateEstimator:
    """Feed it (units done so far, the time) as the job reports; `rate` and `left` read the estimate."""

    def __init__(self) -> None:
        self._points: deque[tuple[float, int]] = deque(maxlen=_KEPT)

    def reset(self) -> None:
        self._points.clear()

    def update(self, done: int, now: float) -> None:
        """One report. A count that did not move adds nothing (the window polls the same report many times);
        one that went back starts over (another stage, another run)."""
        if self._points:
            last_t, last_done = self._points[-1]
            if done == last_done:
                return
            if done < last_done or now < last_t:
                self._points.clear()
        self._points.append((now, done))

    def rate(self) -> Optional[float]:
        """Units a second over the newest reports, or None before there is evidence enough."""
        pts = self._points
        if len(pts) < EVIDENCE + 1:  # the first report is where counting starts, not progress
            return None
        t1, d1 = pts[-1]
        i = max(0, len(pts) - 1 - RECENT)
        while i > 0 and t1 - pts[i][0] < MIN_SPAN_S:
            i -= 1
        t0, d0 = pts[i]
        if t1 - t0 < MIN_SPAN_S or d1 <= d0:
            return None
        return (d1 - d0) / (t1 - t0)

    def left(self, total: Optional[int], now: float) -> Optional[float]:
        """Seconds until `total` at the current rate, counted down since the newest report; None when unknown."""
        rate = self.rate()
        if rate is None or not total:
            return None
        t1, d1 = self._points[-1]
        return max(0.0, (total - d1) / rate - max(0.0, now - t1))


def format_rate(rate: float) -> str:
    """"8.1/s", "0.017/s", "120/s"."""
    if rate < 1:
        return f"{rate:.2g}/s"
    return f"{rate:.1f}/s" if rate < 100 else f"{rate:,.0f}/s"


def format_left(seconds: float) -> str:
    """"45 s", "12 min", "3 h 05 min": to the precision an estimate has."""
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{(s + 30) // 60} min"
    m = (s + 30) // 60
    return f"{m // 60} h {m % 60:02d} min"
