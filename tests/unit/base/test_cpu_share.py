"""base/cpu_share.py: other processes' CPU told from this process's own, and the threads background work takes
beside them."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from searchapp.base.cpu_share import MIN_INTERVAL_S, CpuShare, threads_beside, usable_cores

pytestmark = pytest.mark.skipif(not Path("/proc/stat").exists(), reason="reads /proc/stat (Linux)")

SPIN = "import time\nend = time.monotonic() + 60\nwhile time.monotonic() < end: pass\n"


def test_threads_beside_other_work():
    assert threads_beside(2, 0.0, 2) == 2  # a quiet machine: the setting
    assert threads_beside(2, 0.3, 2) == 2  # a little other work: still both
    assert threads_beside(2, 1.0, 2) == 1  # one core busy elsewhere: the one left
    assert threads_beside(2, 4.0, 2) == 1  # everything busy: never fewer than one
    assert threads_beside(4, 3.0, 8) == 4  # never more than the setting
    assert threads_beside(8, 5.0, 8) == 3


def test_this_process_s_work_is_its_own_and_another_process_s_is_others():
    share = CpuShare()
    assert share.read() is None  # too soon to tell
    end = time.monotonic() + 0.6
    while time.monotonic() < end:  # this process at 100% of a core
        pass
    others, own = share.read()
    assert own >= 0.6 and others <= 0.5, (others, own)
    busy = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(max(1, usable_cores() - 1))]
    try:
        share.read()
        time.sleep(max(0.8, MIN_INTERVAL_S))  # this process idle, the others spinning
        others, own = share.read()
    finally:
        for p in busy:
            p.kill()
            p.wait()
    assert others >= 0.6 * len(busy) and own <= 0.3, (others, own)
