"""How many cores other processes kept busy lately, and how many threads background work should use beside them.

Why: on a 2-core machine two torch threads beside one busy process wait on each other at every barrier; one
thread gets more done. Measured (`bench_passage_paths.py`, the default mixed-bf16 passage path, 64 passages,
2026-11-26, AVX-512 BF16 without AMX): quiet, 2 threads 74.3 passages/s and 1 thread 48.7; beside one process
at 100%, 2 threads 36.4 and 1 thread 47.5; beside four, 15.8 and 17.8. So a sync's encoder uses the threads the
other processes leave it (models/encode_threads.py, for a `background` encode), at least one, at most its setting.

Other processes' share is /proc/stat's busy time less this process's own CPU time (every thread of it: a search
in the window is this process's own work, not a reason to step aside). Linux only; elsewhere nothing is known
and the setting stands.
"""

from __future__ import annotations

import os
import time
from typing import Callable, Optional

__all__ = ["usable_cores", "proc_stat_seconds", "sample", "CpuShare", "threads_beside"]

MIN_INTERVAL_S = 0.1  # /proc/stat counts in 10 ms steps: a shorter interval tells nothing


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def proc_stat_seconds() -> Optional[tuple[float, float]]:
    """(seconds all cores were busy so far, seconds they were idle, I/O wait included), from /proc/stat's first
    line; None where there is none."""
    try:
        with open("/proc/stat", "rb") as fh:
            fields = fh.readline().split()
        user, nice, system, idle, iowait, irq, softirq, steal = (int(x) for x in fields[1:9])
    except (OSError, ValueError, IndexError):
        return None
    tick = os.sysconf("SC_CLK_TCK") or 100
    return (user + nice + system + irq + softirq + steal) / tick, (idle + iowait) / tick


def sample() -> Optional[tuple[float, float, float]]:
    """(CPU seconds every core was busy so far, this process's CPU seconds, the monotonic clock), or None."""
    seconds = proc_stat_seconds()
    if seconds is None:
        return None
    own = os.times()
    return seconds[0], own.user + own.system, time.monotonic()


Sample = Callable[[], Optional[tuple[float, float, float]]]


class CpuShare:
    """Cores' worth of CPU used since the previous reading: by other processes, and by this one.

    `sample` gives (busy seconds of every core, this process's CPU seconds, a clock); the default reads
    /proc/stat. Tests hand their own, so what they check never depends on how busy the machine is."""

    def __init__(self, sample: Sample = sample) -> None:
        self._sample = sample
        self._last = sample()

    def read(self) -> Optional[tuple[float, float]]:
        """(other processes' cores, this process's cores) since the previous reading that told something; None
        where /proc/stat cannot be read or under MIN_INTERVAL_S has passed (the next reading then covers it)."""
        now = self._sample()
        last = self._last
        if now is None or last is None:
            self._last = now
            return None
        wall = now[2] - last[2]
        if wall < MIN_INTERVAL_S:
            return None
        self._last = now
        own = max(0.0, now[1] - last[1])
        others = max(0.0, (now[0] - last[0]) - own)
        return others / wall, own / wall


def threads_beside(configured: int, others: float, cores: int) -> int:
    """Threads for background work beside `others` cores of other processes' work on `cores` cores: as many
    as the cores they leave (rounded), at least one, at most `configured`."""
    return max(1, min(configured, int(cores - others + 0.5)))
