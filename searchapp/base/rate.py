"""How fast a long job goes and how long it has left, from what it reported: one estimator for the command
line's progress line, the window's strip and `status` (issue 41: "an honest time left").

The rate is the work done since the newest change of pace the reports prove (another program started or
stopped), and over the newest RECENT reports (back far enough to span MIN_SPAN_S) at least. On a steady machine
that is the whole stage's average, the smoothest figure there is: batches differ in length, and the newest few
alone misread the pace (by 21 % in bench_time_left.py where the average erred 11 %). After a change of pace
the stretch starts at the change, so the new pace is followed within RECENT reports; a change is proven when
the two stretches' paces differ by CHANGE_Z standard errors, reckoned from how unevenly their batches went.

Before EVIDENCE reports spanning MIN_SPAN_S `rate` says nothing: an early figure from one batch (models still
warming up, a first short file) misleads more than none. `estimate` (what the strip and the command line show)
gives a FIRST estimate sooner, marked as one: once EVIDENCE batches after the first span EARLY_SPAN_S and make
EARLY_SHARE of the stage. Waiting for MIN_SPAN_S of evidence left a 45 s sync without a time left for most of it
(a newcomer, n7: "Reading 497 of 3,000 files" with no word of how long). The first batch is left out of it (it
carries the model's warm-up, a first file's open); from MIN_SPAN_S on the estimate is `rate`'s, unchanged, so the
first estimate only fills the seconds before it and issue 41's "within 30 % after the first minute" stands.
Time left counts down between reports (work is reported per batch, a CPU batch can take seconds).

Every time is the caller's (`now`), so tests drive a clock of their own.
"""

from __future__ import annotations

import itertools
import math
from collections import deque
from typing import NamedTuple, Optional

__all__ = ["RateEstimator", "Estimate", "RECENT", "EARLY_SPAN_S", "EARLY_SHARE", "left_words", "EVIDENCE", "MIN_SPAN_S", "CHANGE_Z", "PAUSED_STAGES", "format_rate", "format_left"]

RECENT = 8  # reports the rate is taken over at least (the newest ones)
EVIDENCE = 3  # reports with progress before any rate is shown
MIN_SPAN_S = 10.0  # seconds those reports must span (further back if RECENT reports span less)
EARLY_SPAN_S = 3.0  # seconds a first estimate's batches span at least (fewer: a few batches' luck)
EARLY_SHARE = 0.03  # of the stage's total they must have done (less: a huge stage's first minutes, still noisy)
CHANGE_Z = 4.0  # standard errors two stretches' paces must differ by to prove a change (many splits are tried)
_SIDE = RECENT  # reports on each side of a change, at least
_NEWER_S = 60.0  # seconds a new pace must last to count: a batch or two that stall (the sync stepped aside, a
# burst of other work) is not a new pace, and the whole stage's average rides it out best
_CV_FLOOR = 0.05  # no batch is that even: a stretch of identical batches does not prove a change by itself
_KEPT = 1024  # reports kept: a CPU reports a batch every few seconds, so this reaches back most of an hour
# Stages in which a job stands still while something else works (a writer handover: library/sync/handover.py's
# WAITING). Its wait is no measure of the job's pace: a window spanning a 300 s wait made 64 passages/s read 6/s
# and ten times the time left, for the next RECENT reports, and that rate was saved for `status`. No report says
# when the wait ended (the next one comes a batch later), so the gap cannot be cut out exactly: every estimator
# fed such a report starts over.
PAUSED_STAGES = frozenset({"waiting"})


class Estimate(NamedTuple):
    rate: float  # units a second
    left: float  # seconds
    first: bool  # a first estimate, before MIN_SPAN_S of evidence: said as one ("first estimate")


class RateEstimator:
    """Feed it (units done so far, the time) as the job reports; `rate` and `left` read the estimate."""

    def __init__(self) -> None:
        self._points: deque[tuple[float, int]] = deque(maxlen=_KEPT)
        self._stretch: Optional[tuple[float, int]] = None  # where the steady stretch starts, until the next report

    def reset(self) -> None:
        self._points.clear()
        self._stretch = None

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
        self._stretch = None

    def rate(self) -> Optional[float]:
        """Units a second since the newest change of pace the reports prove (over the newest RECENT reports at
        least), or None before there is evidence enough."""
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
        if self._stretch is None:  # the window and the command line ask several times a report
            # never less than the newest RECENT reports: a change those few prove is still followed within them
            self._stretch = pts[self._steady_start()]
        t0, d0 = self._stretch
        return (d1 - d0) / (t1 - t0)

    def _steady_start(self) -> int:
        """The report the newest steady stretch starts at: 0, or the newest change of pace the reports prove."""
        start = 0
        while (split := _change_of_pace(list(self._points)[start:])) is not None:
            start += split
        return start

    def left(self, total: Optional[int], now: float) -> Optional[float]:
        """Seconds until `total` at the current rate, counted down since the newest report; None when unknown."""
        rate = self.rate()
        if rate is None or not total:
            return None
        t1, d1 = self._points[-1]
        return max(0.0, (total - d1) / rate - max(0.0, now - t1))

    def estimate(self, total: Optional[int], now: float) -> Optional[Estimate]:
        """The rate and time left to show: `rate`'s once it has MIN_SPAN_S of evidence, before that a first
        estimate (the pace since the second report) once EVIDENCE batches after it span EARLY_SPAN_S and did
        EARLY_SHARE of `total`; None before either."""
        rate = self.rate()
        first = rate is None
        if first:
            rate = self._first_rate(total)
        if rate is None or not total:
            return None
        t1, d1 = self._points[-1]
        return Estimate(rate, max(0.0, (total - d1) / rate - max(0.0, now - t1)), first)

    def _first_rate(self, total: Optional[int]) -> Optional[float]:
        pts = self._points
        if not total or len(pts) < EVIDENCE + 2:  # the first report starts the count, the first batch warms up
            return None
        (t0, d0), (t1, d1) = pts[1], pts[-1]
        if t1 - t0 < EARLY_SPAN_S or d1 - d0 < EARLY_SHARE * total:
            return None
        return (d1 - d0) / (t1 - t0)


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


def left_words(est: Estimate) -> str:
    """"about 40 s left (first estimate)", "about 12 min left": the strip's and the command line's words."""
    return f"about {format_left(est.left)} left" + (" (first estimate)" if est.first else "")


def _change_of_pace(pts: list[tuple[float, int]]) -> Optional[int]:
    """The likeliest point where the pace changed, if the reports prove it (else None).

    A split's evidence is the log of the two stretches' pace ratio over its standard error (Welch's: each stretch
    brings its own unevenness, the spread of its batches' seconds per unit around its own mean): uneven batches
    need many reports to prove a change, even ones few. The newer stretch must last _NEWER_S."""
    n = len(pts) - 1  # batches
    if n < 2 * _SIDE:
        return None
    per_unit = [(t1 - t0) / (d1 - d0) for (t0, d0), (t1, d1) in itertools.pairwise(pts)]
    sums, squares = [0.0], [0.0]
    for x in per_unit:
        sums.append(sums[-1] + x)
        squares.append(squares[-1] + x * x)
    best, best_z = None, CHANGE_Z
    for k in range(_SIDE, n - _SIDE + 1):
        if pts[n][0] - pts[k][0] < _NEWER_S:
            break  # later splits leave the new pace even less time
        if not pts[0][0] < pts[k][0]:
            continue  # a stretch of no time has no pace
        se2 = _relative_spread(sums[k], squares[k], k) / k
        se2 += _relative_spread(sums[n] - sums[k], squares[n] - squares[k], n - k) / (n - k)
        z = abs(math.log(_pace(pts, 0, k) / _pace(pts, k, n))) / math.sqrt(se2)
        if z > best_z:
            best, best_z = k, z
    return best


def _relative_spread(total: float, squares: float, count: int) -> float:
    """The squared coefficient of variation of `count` values from their sum and sum of squares (at least
    _CV_FLOOR's square)."""
    mean = total / count
    variance = max(0.0, squares / count - mean * mean) * count / (count - 1)
    return max(_CV_FLOOR**2, variance / (mean * mean)) if mean > 0 else _CV_FLOOR**2


def _pace(pts: list[tuple[float, int]], a: int, b: int) -> float:
    return (pts[b][1] - pts[a][1]) / (pts[b][0] - pts[a][0])
