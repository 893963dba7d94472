"""A closed terminal (SIGHUP): what a stopping command still writes must not end it (cli/main.py's stop signals,
cli/gui_signals.py's for the window)."""

from __future__ import annotations

import os
import stat
import sys

__all__ = ["leave_terminal"]


def leave_terminal() -> None:
    """After SIGHUP the terminal may be gone, and each line written to it an error (EIO) that would end the
    command before it cleans up: standard output and error that are a terminal go to the null device instead.
    Pipes and files keep every line."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        null_dev = os.fstat(null).st_rdev
    except OSError:
        return
    try:
        for stream in (sys.stdout, sys.stderr):
            try:
                fd = stream.fileno()
                st = os.fstat(fd)
                if stat.S_ISCHR(st.st_mode) and st.st_rdev != null_dev:  # a terminal, live or hung up
                    os.dup2(null, fd)
            except (OSError, ValueError, AttributeError):  # closed, or not a real file (captured in tests)
                continue
    finally:
        os.close(null)
