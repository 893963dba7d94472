"""Ctrl+C, `kill` and a closed terminal close `searchapp gui` as File → Quit does (decision 0158).

A newcomer's Ctrl+C printed "stopping after the current batch" and the window ran on for ten minutes; a second
Ctrl+C printed a traceback and it still ran; only SIGTERM ended it, leaving warm.sock behind. Now each signal
closes the window (a sync stopped at its batch and resumed at the next start, as Quit and resume next time),
removes its socket and exits 0; a second signal while it closes ends it at once (130). Real subprocesses, the
real window offscreen, real signals."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from stopped_process import HANG_GUARD_S, finish
from conftest import build_tiny_library

pytest.importorskip("PySide6")

TEXTS = {"bread.txt": "A recipe for sourdough bread with a long cold proof."}


@pytest.fixture
def library(tmp_path, tiny_bi_encoder_dir, tiny_encoder) -> Path:
    return build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder, 'reranker = ""\n')


def as_from_a_terminal() -> None:
    """In the child: SIGHUP as a terminal's shell leaves it (the suite itself may run under `nohup`)."""
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def start(argv: list[str]) -> subprocess.Popen:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, env=env, preexec_fn=as_from_a_terminal)


def start_window(data: Path) -> subprocess.Popen:
    return start([sys.executable, "-m", "searchapp", "--data-dir", str(data), "gui"])


def wait_for(proc: subprocess.Popen, sign, what: str) -> None:
    """Until `sign()` holds (a hang guard, not a timing check); the process must still run."""
    end = time.monotonic() + HANG_GUARD_S
    while not sign():
        if proc.poll() is not None or time.monotonic() > end:
            code, out = finish(proc)
            raise AssertionError(f"{what} never came; exit {code}; output: {out}")
        time.sleep(0.05)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP],
                         ids=["SIGINT", "SIGTERM", "SIGHUP"])
def test_a_stop_signal_closes_the_window_as_quit_does(library, signum):
    proc = start_window(library)
    wait_for(proc, (library / "warm.sock").exists, "the window's warm socket")  # the window's library is open
    os.kill(proc.pid, signum)
    code, out = finish(proc)
    assert code == 0, out
    assert "closing the window" in out and "Traceback" not in out, out
    assert not (library / "warm.sock").exists()
    # Saved as a Quit saves it (a window killed outright writes nothing there)
    assert "geometry=" in (library / "gui.ini").read_text(encoding="utf-8")


def test_a_signal_mid_sync_stops_it_at_its_batch_and_the_next_start_resumes_it(library):
    """A sync is running (the indexing a Quit stopped last time, resumed at start): the signal stops it as Quit
    and resume next time does, without the question a Quit asks."""
    docs = library.parent / "docs"
    for i in range(400):
        (docs / f"note{i:03d}.txt").write_text(
            f"Note {i}. " + " ".join(f"The committee discussed item {i}-{j} about budgets and rivers."
                                     for j in range(8)), encoding="utf-8")
    ini = library / "gui.ini"
    ini.write_text("[General]\nresume_sync=quit\n", encoding="utf-8")
    proc = start_window(library)
    # While a sync runs, gui.ini says so (quit_guard.py: a crash then resumes it)
    wait_for(proc, lambda: "resume_sync=interrupted" in ini.read_text(encoding="utf-8"), "the resumed sync")
    os.kill(proc.pid, signal.SIGINT)
    code, out = finish(proc)
    assert code == 0, out
    assert "Traceback" not in out and "it goes on when searchapp next starts" in out, out
    assert "resume_sync=quit" in ini.read_text(encoding="utf-8")  # the next start resumes it
    assert not (library / "warm.sock").exists()


WATCHED = """
import threading
from PySide6.QtCore import QThreadPool
from searchapp.base.progress import CancelToken
from searchapp.cli.gui_signals import WindowSignals

stops = WindowSignals(CancelToken())
assert stops.install()
stops.when_asked(lambda: print("stop asked", flush=True))
pool = QThreadPool()
pool.start(threading.Event().wait)  # a sync's batch that does not end
print("watching", flush=True)
pool.waitForDone()  # where a closing window's GUI thread waits (JobRunner.shutdown): in C++, no Python handler runs
"""


def test_a_second_signal_while_it_closes_ends_it_at_once(tmp_path):
    """The window's GUI thread waits for a sync's batch as it closes: a second Ctrl+C must not wait too. Here the
    main thread is held for good (a window's close never ending) and the signals are the process's real ones."""
    proc = start([sys.executable, "-c", WATCHED])
    lines: queue.Queue[str] = queue.Queue()
    reader = threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True)
    reader.start()
    seen = [wait_for_line(proc, lines, "watching")]
    os.kill(proc.pid, signal.SIGINT)
    seen.append(wait_for_line(proc, lines, "stop asked"))
    os.kill(proc.pid, signal.SIGINT)
    try:
        code = proc.wait(timeout=HANG_GUARD_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    reader.join(HANG_GUARD_S)  # its output read to the end
    out = "".join(seen) + "".join(lines.queue)
    assert code == 130, out
    assert "closing the window (Ctrl+C again to end at once)" in out and "searchapp: ended at once" in out, out
    assert "Traceback" not in out, out


def wait_for_line(proc: subprocess.Popen, lines: queue.Queue[str], text: str) -> str:
    """The lines read up to and with the first that holds `text` (a hang guard, not a timing check)."""
    seen = ""
    end = time.monotonic() + HANG_GUARD_S
    while time.monotonic() < end:
        try:
            line = lines.get(timeout=1.0)
        except queue.Empty:
            if proc.poll() is not None:
                break
            continue
        seen += line
        if text in line:
            return seen
    proc.kill()
    raise AssertionError(f"{text!r} never came; exit {proc.wait()}; output: {seen}")
