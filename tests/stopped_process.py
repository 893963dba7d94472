"""A command the stop-signal tests start as a real subprocess, and how they collect it once signalled."""

from __future__ import annotations

import subprocess
from typing import Sequence

HANG_GUARD_S = 240.0  # a bound for a failing test (a process that never ends), not a timing check


def finish(proc: subprocess.Popen, seen: Sequence[str] = ()) -> tuple[int, str]:
    """(exit code, output) of `proc` once it ends, after the lines already read from it (`seen`); killed past the
    hang guard."""
    try:
        out, _ = proc.communicate(timeout=HANG_GUARD_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, "".join(seen) + (out or "")
