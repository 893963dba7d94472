"""base/cpu_share.py: other processes' CPU told from this process's own, and the threads background work takes
beside them."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from searchapp.base.cpu_share import MIN_INTERVAL_S, CpuShare, sample, threads_beside

pytestmark = pytest.mark.skipif(not Path("/proc/stat").exists(), reason="reads /proc/stat (Linux)")


def test_threads_beside_other_work():
    assert threads_beside(2, 0.0, 2) == 2  # a quiet machine: the setting
    assert threads_beside(2, 0.3, 2) == 2  # a little other work: still both
    assert threads_beside(2, 1.0, 2) == 1  # one core busy elsewhere: the one left
    assert threads_beside(2, 4.0, 2) == 1  # everything busy: never fewer than one
    assert threads_beside(4, 3.0, 8) == 4  # never more than the setting
    assert threads_beside(8, 5.0, 8) == 3


def test_a_reading_splits_the_machine_s_busy_time_into_others_and_own():
    samples = iter([(10.0, 1.0, 100.0),  # (busy seconds of every core, this process's seconds, clock)
                    (11.0, 1.45, 100.5),  # 1.0 s busy in 0.5 s, 0.45 of it this process's
                    (11.01, 1.46, 100.55),  # under MIN_INTERVAL_S: nothing told, the next reading covers it
                    (12.0, 1.5, 101.0),
                    None])  # /proc/stat gone
    share = CpuShare(sample=lambda: next(samples))
    others, own = share.read()
    assert (others, own) == (pytest.approx(1.1), pytest.approx(0.9))
    assert share.read() is None
    others, own = share.read()  # since 100.5: 1.0 s busy, 0.05 own, in 0.5 s
    assert (others, own) == (pytest.approx(1.9), pytest.approx(0.1))
    assert share.read() is None


def _cpu_seconds() -> float:
    t = os.times()
    return t.user + t.system


class Recording:
    """The real sample (/proc/stat), each one kept: the test reads the interval a reading covered."""

    def __init__(self) -> None:
        self.seen: list[tuple[float, float, float]] = []

    def __call__(self):
        got = sample()
        assert got is not None
        self.seen.append(got)
        return got

    def wall(self) -> float:
        return self.seen[-1][2] - self.seen[0][2]


# A child spinning 0.3 s of its own CPU time (not wall time: a busy machine only makes it take longer).
SPIN_CPU = ("import os\nt = lambda: os.times().user + os.times().system\nend = t() + 0.3\n"
            "while t() < end: pass\n")


def test_this_process_s_spinning_is_its_own_on_the_real_counters():
    """On /proc/stat itself, with amounts of CPU the test makes: however busy the machine is, 0.3 s of this
    process's CPU is counted as its own, and not as other processes'."""
    sample = Recording()
    share = CpuShare(sample=sample)
    start = _cpu_seconds()
    while _cpu_seconds() - start < 0.3:
        pass
    got = share.read()
    assert got is not None
    others, own = got
    spun = _cpu_seconds() - start
    assert own * sample.wall() == pytest.approx(spun, abs=0.02), (others, own, spun)


def test_another_process_s_spinning_is_others_on_the_real_counters():
    sample = Recording()
    share = CpuShare(sample=sample)
    before = _cpu_seconds()
    child = subprocess.Popen([sys.executable, "-c", SPIN_CPU])
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    assert child.returncode == 0
    child_cpu = usage.ru_utime + usage.ru_stime  # at least 0.3 s, by construction
    mine = _cpu_seconds() - before
    time.sleep(MIN_INTERVAL_S)
    got = share.read()
    assert got is not None
    others, own = got
    wall = sample.wall()
    assert others * wall >= child_cpu - 0.05, (others, own, child_cpu)  # the child's spinning is others'
    assert own * wall <= mine + 0.02 < child_cpu, (others, own, mine)  # and none of it this process's
