"""The progress bar on a terminal that reports no size: drawn at a usual width, not left out."""

from __future__ import annotations

import fcntl
import os
import struct
import subprocess
import sys
import termios
from pathlib import Path

from stopped_process import HANG_GUARD_S

SHOW = ("from searchapp.base.progress import Progress\n"
        "from searchapp.cli.progress import TerminalProgress\n"
        "bar = TerminalProgress()\n"
        "for done in (0, 100):  # the first report and the last are drawn at once (REDRAW_S)\n"
        "    bar(Progress('embedding', done, 100))\n"
        "bar.close()\n")


def _drawn_on_a_terminal_of(rows: int, columns: int) -> str:
    """What TerminalProgress writes, in its own process, to a real pseudo-terminal of that size (no COLUMNS)."""
    ours, theirs = os.openpty()
    fcntl.ioctl(theirs, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).resolve().parents[3]), env.get("PYTHONPATH", "")])
    proc = subprocess.Popen([sys.executable, "-c", SHOW], stdin=theirs, stdout=theirs, stderr=theirs, env=env)
    os.close(theirs)
    out = b""
    try:
        while True:
            try:
                chunk = os.read(ours, 4096)
            except OSError:  # EIO: the process ended, its side of the terminal is closed
                break
            if not chunk:
                break
            out += chunk
    finally:
        os.close(ours)
        proc.wait(timeout=HANG_GUARD_S)
    return out.decode("utf-8", "replace")


def test_a_terminal_of_no_columns_still_shows_the_bar():
    """`script -q -c 'searchapp index …' /dev/null` with no real terminal behind it reports 0 columns and 0 rows:
    a newcomer's 5-minute embedding showed no bar and no other sign of progress. It is drawn 80 columns wide."""
    drawn = _drawn_on_a_terminal_of(0, 0)
    lines = [line for line in drawn.split("\r") if line.strip()]
    assert any(line.startswith("embedding:   0%|") and "0/100" in line for line in lines), repr(drawn)
    full = next(line for line in lines if line.startswith("embedding: 100%|"))
    assert len(full.rstrip()) == 80, repr(full)
    sized = _drawn_on_a_terminal_of(24, 120)  # a sized terminal's width is its own, as before (tqdm keeps one free)
    assert any(len(line.rstrip()) == 119 for line in sized.split("\r") if line.startswith("embedding: 100%|")), \
        repr(sized)
