"""`kill` (SIGTERM, what service managers send) and a closed terminal (SIGHUP) stop a command as Ctrl+C does.

A newcomer's `kill` of `searchapp watch` ended it with exit 143, no message and warm.sock left behind; killed in the
middle of a live update, the update's line never came. Now each signal asks the command to stop after the current
batch: a watch says so, finishes, removes its socket and exits 0; an `index` waiting its turn is cancelled (130),
holding nothing. Real subprocesses, real signals."""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from stopped_process import HANG_GUARD_S, finish
from conftest import build_tiny_library

TEXTS = {"bread.txt": "A recipe for sourdough bread with a long cold proof."}


@pytest.fixture
def library(tmp_path, tiny_bi_encoder_dir, tiny_encoder) -> Path:
    return build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder, 'reranker = ""\n')


def command(data: Path, *argv: str) -> list[str]:
    return [sys.executable, "-m", "searchapp", "--data-dir", str(data), *argv]


def as_from_a_terminal() -> None:
    """In the child before it runs: the hang-up as a terminal's shell leaves it (the suite itself may run under
    `nohup`, whose ignored SIGHUP the watch rightly keeps: test_a_signal_the_caller_ignores_stays_ignored)."""
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def run_until(data: Path, text: str, *argv: str) -> tuple[subprocess.Popen, list[str]]:
    """`searchapp ARGV` started, once a line of its output holds `text`; that process and its lines so far."""
    proc = subprocess.Popen(command(data, *argv), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, preexec_fn=as_from_a_terminal)
    seen: list[str] = []
    end = time.monotonic() + HANG_GUARD_S  # a hang guard, not a timing check
    for line in proc.stdout:
        seen.append(line)
        if text in line:
            return proc, seen
        if time.monotonic() > end:
            break
    proc.kill()
    raise AssertionError(f"{text!r} never came; exit {proc.wait()}; output: {''.join(seen)}")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_signal_stops_a_watch_as_ctrl_c_does(library, signum):
    proc, seen = run_until(library, "Ctrl+C stops", "watch", "--poll", "--debounce", "0.2")
    assert (library / "warm.sock").exists()
    os.kill(proc.pid, signum)
    code, out = finish(proc, seen)
    assert code == 0, out
    assert "stopping after the current batch (a second signal to abort)" in out, out  # not "Ctrl+C again"
    assert out.rstrip().endswith("stopped watching"), out
    assert not (library / "warm.sock").exists()


def test_a_closed_terminal_stops_a_watch_cleanly(library):
    """The terminal itself goes (the kernel sends SIGHUP, and each later line to it is an error): the watch still
    cleans up and exits 0, not 1 on the line it could not write."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: the watch, on the pseudo-terminal
        try:
            as_from_a_terminal()
            os.execv(sys.executable, command(library, "watch", "--poll", "--debounce", "0.2"))
        finally:
            os._exit(127)
    out, end = b"", time.monotonic() + HANG_GUARD_S
    try:
        while b"Ctrl+C stops" not in out and time.monotonic() < end:
            if select.select([fd], [], [], 1.0)[0]:
                try:
                    out += os.read(fd, 4096)
                except OSError:  # the child ended: its terminal reads EIO
                    break
        assert b"Ctrl+C stops" in out, out
    finally:
        os.close(fd)  # hang up
    for _ in range(int(HANG_GUARD_S * 10)):
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.1)
    else:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise AssertionError("the watch went on after its terminal closed")
    assert os.waitstatus_to_exitcode(status) == 0
    assert not (library / "warm.sock").exists()


HOLD_LOCK = """
import sys
from pathlib import Path
from searchapp.library.resources.lock import writer_lock
with writer_lock(Path(sys.argv[1])):
    print("locked", flush=True)
    sys.stdin.read()
"""


def test_sigterm_cancels_an_index_and_leaves_nothing_held(tmp_path, library):
    """An `index` waiting its turn behind another writer: SIGTERM cancels it as Ctrl+C does (130, said), and the
    writer lock is free for the next command once the holder lets go."""
    from searchapp.library.resources.lock import writer_lock

    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(library)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        folder = tmp_path / "more"
        folder.mkdir()
        (folder / "comet.txt").write_text("A comet crossed the night sky.\n", encoding="utf-8")
        proc, seen = run_until(library, "waiting for", "index", "--words-only", str(folder))
        os.kill(proc.pid, signal.SIGTERM)
        code, out = finish(proc, seen)
        assert code == 130, out
        assert "stopping after the current batch" in out and "searchapp: cancelled" in out, out
    finally:
        holder.stdin.close()
        holder.wait(timeout=60)
    with writer_lock(library, wait=0.5):  # taken at once: nothing of the cancelled index holds it
        pass


# `searchapp index ARGV` with one step of the sync waiting on a thread's join that no cancel ends (as the meaning
# pass waits for a model loaded beside the reading, or a file's reading sits in a slow parser): the first Ctrl+C is
# noted and the wait goes on, so the second reliably comes in the middle of it
STUCK = """
import sys, threading
import searchapp.library.sync.updates as updates, searchapp.library.sync.words_pass as words_pass

def stuck(*args, **kwargs):
    print("STUCK", file=sys.stderr, flush=True)
    waiting = threading.Thread(target=threading.Event().wait, daemon=True)
    waiting.start()
    waiting.join()

if sys.argv[1] == "reading":
    words_pass.extract = stuck
else:
    updates.embed_pending = stuck
from searchapp.cli.main import main
sys.exit(main(sys.argv[2:]))
"""


@pytest.mark.parametrize("moment", ["reading", "embedding"])
def test_a_second_ctrl_c_ends_at_once_in_one_line_and_the_library_stays_consistent(tmp_path, library, moment):
    """A newcomer's second Ctrl+C ("Ctrl+C again to abort") always ended in a Python traceback (up to 190 lines,
    `raise KeyboardInterrupt` out of a model load's join or a Cancelled being handled) and exit 1. Now: one line,
    exit 130, whatever the process was in; everything committed before stays, and the stop is said by the next."""
    from searchapp.base.config import load_config
    from searchapp.cli.abort import ABORTED_LINE
    from searchapp.library import Library

    folder = tmp_path / "more"
    folder.mkdir()
    (folder / "comet.txt").write_text("A comet crossed the night sky.\n", encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-c", STUCK, moment, "--data-dir", str(library), "index", str(folder)],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    seen = []
    for line in proc.stdout:  # bounded: the process prints STUCK, or ends and the loop with it
        seen.append(line)
        if "STUCK" in line:
            os.kill(proc.pid, signal.SIGINT)
        if "Ctrl+C again to abort" in line:
            os.kill(proc.pid, signal.SIGINT)
            break
    code, out = finish(proc, seen)
    assert code == 130, out
    assert "Traceback" not in out and out.rstrip().splitlines()[-1] == ABORTED_LINE, out
    with Library(load_config(library, env={}, overrides={"models": {"reranker": ""}})) as lib:
        st = lib.status(fresh_check=True)
        assert st.consistent, st
        assert lib.stopped_sync() is not None  # the stop is said by the next status and index
        found = {Path(h.path).name for h in lib.search("comet OR sourdough", k=5, mode="lexical").hits}
    # the words of a file whose batch was committed before the abort stay; the one in progress is dropped
    assert found == ({"bread.txt"} if moment == "reading" else {"bread.txt", "comet.txt"}), found


WITH_A_WORKER = """
import multiprocessing, sys, time
from searchapp.cli.abort import end_now

if __name__ == "__main__":
    worker = multiprocessing.get_context("spawn").Process(target=time.sleep, args=(3600,))
    worker.start()
    print(worker.pid, flush=True)
    end_now("searchapp: aborted")
"""


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process states from /proc")
def test_ending_at_once_leaves_no_worker_process_behind(tmp_path):
    """A read-ahead worker (a spawned process waiting for its next group) outlived a process ended with os._exit,
    for ever: the end kills it first."""
    script = tmp_path / "with_a_worker.py"
    script.write_text(WITH_A_WORKER, encoding="utf-8")
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert proc.returncode == 130 and proc.stderr.strip() == "searchapp: aborted", proc
    worker = int(proc.stdout)
    end = time.monotonic() + HANG_GUARD_S  # a hang guard for a failing test: a killed worker ends in a moment
    while _state(worker) not in ("", "Z") and time.monotonic() < end:
        time.sleep(0.05)
    assert _state(worker) in ("", "Z"), _state(worker)  # gone, or ended and not yet reaped by init


def _state(pid: int) -> str:
    """The process's state letter from /proc (Z: ended, not yet reaped), "" once it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return ""


def test_only_the_commands_that_write_wait_for_a_batch_boundary():
    """A search or the window never checks the cancel token: a `kill` must still end it at once."""
    from searchapp.base.progress import CancelToken
    from searchapp.cli.main import _install_stop_signals

    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        for command, gentle in (("search", False), ("gui", False), ("watch", True), ("index", True)):
            for s in (signal.SIGTERM, signal.SIGHUP):
                signal.signal(s, signal.SIG_DFL)
            _install_stop_signals(CancelToken(), command)
            assert callable(signal.getsignal(signal.SIGINT))
            for s in (signal.SIGTERM, signal.SIGHUP):
                assert (signal.getsignal(s) is not signal.SIG_DFL) == gentle, (command, s)
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)


def test_a_signal_the_caller_ignores_stays_ignored():
    """`nohup searchapp watch &` sets SIGHUP to be ignored: the watch must outlive its terminal (found by a review:
    the stop handler replaced nohup's choice)."""
    from searchapp.base.progress import CancelToken
    from searchapp.cli.main import _install_stop_signals

    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        _install_stop_signals(CancelToken(), "watch")
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
        assert callable(signal.getsignal(signal.SIGTERM))
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)
