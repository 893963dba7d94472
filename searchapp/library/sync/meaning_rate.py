"""This machine's embedding rate, as a sync measured it, kept in the library: what `status` says the meaning
still waiting will take, and what the window's big-folder prompt estimates a new folder from.

A sync's progress goes through `RememberRate` (one base/rate.RateEstimator over its "embedding" reports); the
measured passages/s is written to the library's meta table at most every SAVE_EVERY_S seconds and when the pass
ends, on the sync's own thread (the writer). Where no sync has measured one yet, `probe_rate` times one small
batch of passage-sized texts on the loaded encoder: rougher (no warm cache, one batch), but this machine's.
"""

from __future__ import annotations

import dataclasses

import json
import time
from typing import Any, Callable, Optional

from ...base.progress import LOADING_NOTE, Progress, ProgressFn
from ...base.rate import PAUSED_STAGES, RateEstimator, format_left, format_rate
from ...store import Store
from .contract import PassageEncoder

__all__ = ["aside_note", "RATE_META", "SAVE_EVERY_S", "RememberRate", "remembered_rate", "probe_rate", "meaning_left_s",
           "left_note", "folder_estimate_s", "PROBE_TEXTS"]

RATE_META = "meaning_rate"  # {"passages_per_s": r, "at": unix time}
SAVE_EVERY_S = 30.0
PROBE_TEXTS = 16  # one CPU batch's worth: 2-4 s on two AVX2 cores


def _rate_key(store: Store) -> str:
    """This machine's meta key: a shared library's (a store with a `machine`) keeps each desktop's own pace, the
    rate its time left and its big-folder estimate are made of; another machine's is not this one's."""
    machine = getattr(store, "machine", None)
    return RATE_META if machine is None else f"{RATE_META}:{machine}"


class RememberRate:
    """A ProgressFn wrapper: passes every report on, measures the embedding rate, and keeps it in `store`."""

    def __init__(self, store: Store, progress: Optional[ProgressFn], clock: Callable[[], float] = time.monotonic
                 ) -> None:
        self.store, self.progress, self.clock = store, progress, clock
        self.estimator = RateEstimator()
        self._saved_at: Optional[float] = None
        # What the sync's encoder says of its threads (aside_note): shown with each embedding report, so the
        # strip and the progress line say when other programs' work slows the sync, instead of going silent.
        self.aside: Callable[[], str] = lambda: ""

    def __call__(self, p: Progress) -> None:
        if p.stage == "embedding":
            now = self.clock()
            self.estimator.update(p.done, now)
            if self._saved_at is None or now - self._saved_at >= SAVE_EVERY_S:
                self.save(now)
            note = self.aside()
            if note:
                p = dataclasses.replace(p, message=f"{p.message} · {note}" if p.message else note)  # its step kept
        elif p.stage in PAUSED_STAGES:  # a handover's wait is not this machine's pace: neither shown nor saved
            self.estimator.reset()
        if self.progress is not None:
            self.progress(p)

    def save(self, now: Optional[float] = None) -> None:
        """Write the measured rate, if there is one (also at the end of a pass: a short sync's too)."""
        rate = self.estimator.rate()
        if rate is None:
            return
        self._saved_at = self.clock() if now is None else now
        try:
            with self.store.atomic():
                self.store.set_meta(_rate_key(self.store), json.dumps({"passages_per_s": rate, "at": time.time()}))
        except Exception:  # a rate is a nicety: a busy or full disk never fails the sync for it
            pass


def aside_note(encoder: Any) -> str:
    """"slowed for other programs: 1 of 2 threads" while the sync's encoder leaves cores to other programs'
    work (base/cpu_share.py); LOADING_NOTE before a pass whose first batch loads the model (a newcomer's bar sat
    at "0/48" for 5 s with no word of why); else "". `encoder`: any object: one without threads to fit says
    nothing."""
    if getattr(encoder, "loaded", True) is False:
        loads_next = getattr(encoder, "loads_next", None)
        return LOADING_NOTE if callable(loads_next) and loads_next() else ""
    try:
        used, setting = encoder.stepping_aside()
    except (AttributeError, TypeError):  # an encoder without threads to fit (a GPU's, a test's)
        return ""
    return f"slowed for other programs: {used} of {setting} threads" if used < setting else ""


def remembered_rate(reader: Store) -> Optional[float]:
    """Passages/s the last sync measured here, or None (none yet, or unreadable)."""
    raw = reader.get_meta(_rate_key(reader))
    if not raw:
        return None
    try:
        rate = float(json.loads(raw)["passages_per_s"])
    except (ValueError, TypeError, KeyError):
        return None
    return rate if rate > 0 else None


def probe_rate(encoder: PassageEncoder, texts: Optional[list[str]] = None,
               clock: Callable[[], float] = time.perf_counter) -> float:
    """Passages/s of one batch of passage-sized texts through `encoder`, as a sync encodes (background)."""
    if texts is None:  # ~200 word pieces each, about a default passage
        texts = [f"Probe passage {i}: " + "the quick measurement of how long one passage takes to embed " * 14
                 for i in range(PROBE_TEXTS)]
    encoder.encode(texts[:2], background=True)  # the first call packs weights and warms caches
    t0 = clock()
    encoder.encode(texts, background=True)
    return len(texts) / max(clock() - t0, 1e-6)


def meaning_left_s(waiting: int, rate: Optional[float]) -> Optional[float]:
    return None if not rate or waiting <= 0 else waiting / rate


def left_note(waiting: int, rate: Optional[float]) -> str:
    """"about 1 h 05 min at the last measured 8.1 passages/s", or "" when no rate is known. A sync under way
    keeps the measured rate current (every SAVE_EVERY_S)."""
    left = meaning_left_s(waiting, rate)
    if left is None or rate is None:
        return ""
    return f"about {format_left(left)} at the last measured {format_rate(rate).replace('/s', ' passages/s')}"


def folder_estimate_s(files: int, passages_per_file: float, rate: float) -> float:
    """Seconds to embed a folder of `files` at `rate` passages/s (its words come first and take far less)."""
    return files * passages_per_file / rate
