"""The second stop signal (Ctrl+C again, a second `kill`): the process ends now, in one line and exit 130, whatever
it is doing (cli/main.py's stop signals, cli/gui_signals.py's for the window).

It ends with os._exit, not by raising KeyboardInterrupt: raised, that came out of whatever the main thread was in (a
model load's join, a thread's join at the interpreter's exit, a file's reading mid-Cancelled) as a traceback of
up to 190 lines and exit 1, and an `except BaseException` that keeps a watch going would have swallowed it. An end
at once is what a crash is, and the library is made for that: SQLite's WAL drops the transaction in flight, the
vector index is replaced whole or not at all and repaired from SQLite on open, the stop mark says the sync
stopped (sync/unsaid.py), a leftover warm.sock is removed by the next start. What would outlive it is killed first:
a read-ahead worker (library/sync/read_ahead.py) orphaned would wait for its next task for ever.
"""

from __future__ import annotations

import os
import sys
import threading
from typing import NoReturn

__all__ = ["end_now", "leave_unwaited", "ABORTED", "ABORTED_LINE"]

# model_set.LOAD_THREAD, not imported: this module starts with every command
_LOAD_THREAD = "searchapp-load-bi-encoder"
ABORTED = 130  # cancelled (docs/cli.md, exit codes)
# A command that writes: what a crash keeps (architecture.md: "loses at most the batch in flight"). Often there is
# none in flight: a stopped sync's process waits at its exit for the model loading beside it (not a daemon thread).
ABORTED_LINE = "searchapp: aborted at once; everything committed before is kept, a batch in progress is not"


def end_now(line: str) -> NoReturn:
    """Say `line` and end the process with 130, its worker processes first."""
    try:
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError):  # an output that is gone: ending matters, the line does not
        pass
    _kill_workers()
    os._exit(ABORTED)


def leave_unwaited(code: int) -> int:
    """`code`, or, where the model is still loading beside a command that has ended (stopped by a first signal
    while the meaning pass loaded it ahead: library/resources/model_set.py), the process ends now with `code`: its
    work is written and closed, and the interpreter's exit would wait for that thread (no daemon: torch aborts an
    exit that does not wait). Called where the process ends, after everything (decision 0203)."""
    if not any(t.name == _LOAD_THREAD and t.is_alive() for t in threading.enumerate()):
        return code
    for stream in (sys.stdout, sys.stderr):  # what the command said (no log file is written: stderr's lines are)
        try:
            stream.flush()
        except (OSError, ValueError):  # an output that is gone
            pass
    _kill_workers()
    _remove_private_copies()
    os._exit(code)


def _remove_private_copies() -> None:
    """The opened members' private copies (a mail's attachment the window opened), which an atexit function removes
    and os._exit skips. Only when that module was imported: nothing else made one."""
    copies = sys.modules.get("searchapp.library.members.private_copy")
    if copies is not None:
        copies.remove_open_dir()


def _kill_workers() -> None:
    """Kill this process's multiprocessing children (the read-ahead worker) without waiting for them. Only when
    multiprocessing was imported: nothing else starts one."""
    mp = sys.modules.get("multiprocessing")
    if mp is None:
        return
    try:
        children = mp.active_children()
    except Exception:  # interrupted while its list changed: the end matters more than the workers
        return
    for child in children:
        try:
            child.kill()
        except (OSError, ValueError, AttributeError):  # ended meanwhile, or closed
            continue
