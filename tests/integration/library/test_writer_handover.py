"""Issue 39 item 3, the part 0101 left open: a writer embedding a backlog hands the writer lock to a writer waiting its
turn between two batches (decision 0105). The waiter writes its folder's words and leaves their meaning to the
holder, which then goes on where it was: nothing embedded twice, nothing lost. A waiter that dies while it waits
never stalls the holder; `--no-wait` still refuses at once.

The holder is a Library in this process embedding on a thread; the waiter a second Library on another thread (a
flock excludes another open file, in one process as across two), or a real process where it has to die."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from searchapp.base.errors import Cancelled, StoreError
from searchapp.base.progress import CancelToken
from searchapp.library import Library
from searchapp.library.resources.lock import Holder, WriterWait, writer_lock
from searchapp.library.sync import words_pass as sync_module
from searchapp.library.resources.turns import RESUMES, WANTS, hand_raised

HANG_GUARD_S = 120.0  # a guard against a hang, never a timing check
FILES = 24


class GatedEncoder:
    """The tiny encoder, recording every text it embeds; `gate(call)` runs before each encode call (the test holds
    the holder there until what it checks has happened)."""

    def __init__(self, inner, gate=None) -> None:
        self._inner, self.gate, self.texts = inner, gate, []
        self.calls = 0
        self.batches: list[list[str]] = []

    def __getattr__(self, name):
        return getattr(self._inner, name)

    def encode(self, texts, **kw):
        self.calls += 1
        if self.gate is not None:
            self.gate(self.calls)
        self.texts.extend(texts)
        self.batches.append(list(texts))
        return self._inner.encode(texts, **kw)


def until(what, seconds: float = HANG_GUARD_S) -> None:
    done = threading.Event()
    for _ in range(int(seconds / 0.02)):
        if what():
            return
        done.wait(0.02)
    raise AssertionError("never happened (hang guard)")


@pytest.fixture
def backlog(tmp_path, make_config, monkeypatch):
    """A library whose FILES files are searchable by words, none by meaning yet, in batches of 2 passages."""
    monkeypatch.setattr(sync_module, "BATCH_CHUNKS", 2)
    big = tmp_path / "big"
    big.mkdir()
    for i in range(FILES):
        (big / f"n{i:02d}.txt").write_text(f"Field notes {i}: the heron{i} waded past reed number {i}.\n",
                                           encoding="utf-8")
    config = make_config(models={"reranker": ""}, chunking={"title_context": False})
    return config, big


def one_file_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "new"
    folder.mkdir()
    (folder / "comet.txt").write_text("A comet with a glowing tail crossed the night sky.\n", encoding="utf-8")
    return folder


def finished(thread: threading.Thread, cancel: CancelToken) -> bool:
    """Whether `thread` (a sync with `cancel`) ended within the hang guard; if not, it is cancelled (a wait to take
    the lock back ends on a cancel) so that the test fails instead of hanging in Library.close."""
    thread.join(HANG_GUARD_S)
    if thread.is_alive():
        cancel.cancel()
        thread.join(HANG_GUARD_S)
        return False
    return True


def run_on_thread(fn) -> tuple[threading.Thread, dict]:
    out: dict = {}

    def run() -> None:
        try:
            out["value"] = fn()
        except BaseException as exc:  # the test asserts on it
            out["error"] = exc

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t, out


def test_a_waiting_writer_gets_in_between_batches_and_the_holder_goes_on(tmp_path, backlog, tiny_encoder, qtbot,
                                                                        capsys):
    from searchapp.gui.progress_view import ProgressView
    from searchapp.library.sync.handover import WAITING

    config, big = backlog
    data = Path(config.data_dir)
    holder_enc = GatedEncoder(tiny_encoder)
    waiter_enc = GatedEncoder(tiny_encoder)
    seen: dict = {}
    checked = threading.Event()

    def gate(call: int) -> None:
        if call == 2:  # the holder is embedding: the waiter comes now, and raises its hand before batch 3
            seen["waiter"] = run_on_thread(lambda: waiter.add_folder(one_file_folder(tmp_path)))
            until(lambda: hand_raised(data / WANTS))
        if call == 3:  # after the handover: held here until the test has looked at the library
            assert checked.wait(HANG_GUARD_S)

    with Library(config, encoder=holder_enc) as holder, Library(config, encoder=waiter_enc) as waiter:
        waiter.writer_wait = WriterWait(None)  # as the command line waits (cli/writer_wait.py)
        holder.add_folder(big, embed=False)
        passages = holder.store.chunk_count()
        assert holder.store.pending_count() == passages > 8
        holder_enc.gate = gate
        stop = CancelToken()
        events: list = []
        holding, held = run_on_thread(lambda: holder.sync(progress=events.append, cancel=stop))
        until(lambda: "waiter" in seen)
        waiting, waited = seen["waiter"]
        waiting.join(HANG_GUARD_S)
        assert not waiting.is_alive() and "error" not in waited, waited
        # The waiter is done while the holder still has most of its backlog to embed.
        assert holding.is_alive() and waiter.store.pending_count() > passages // 2
        hits = waiter.search("glowing comet", mode="lexical").hits
        assert hits and Path(hits[0].path).name == "comet.txt"
        assert waiter_enc.texts == []  # nothing embedded by the waiter: its meaning joined the holder's queue
        assert any("joins the queue" in n for n in waited["value"].notes), waited["value"].notes
        # and `index`'s summary does not tell the person to run `searchapp index` for them (a newcomer's find)
        from searchapp.cli.commands.index import print_report

        print_report(waited["value"], as_json=False)
        said = capsys.readouterr()
        assert "still to embed, searchable by words now" in said.out and "`searchapp index` embeds" not in said.out
        assert "joins the queue" in said.err
        checked.set()
        assert finished(holding, stop) and "error" not in held, held
        # The holder went on: every passage, the waiter's too, embedded exactly once, and in its vector index.
        store = holder.store
        total = store.chunk_count()
        assert total == passages + 1 and store.pending_count() == 0
        assert sorted(holder_enc.texts) == sorted(set(holder_enc.texts)) and len(holder_enc.texts) == total
        assert sorted(holder.index().ids().tolist()) == sorted(store.embedded_ids().tolist())
        # ...and found by meaning (the tiny encoder's is random weights: among all the hits, not first).
        hits = holder.search("glowing comet", mode="dense", k=total).hits
        assert "comet.txt" in {Path(h.path).name for h in hits}
        # Its queue read again after the handover: the newest file, the waiter's, is the first batch it embeds.
        assert any("glowing tail" in t for t in holder_enc.batches[2]), holder_enc.batches[:4]
    # What the window's strip shows of it: a wait, said plainly, then the embedding going on.
    stages = [e.stage for e in events]
    assert WAITING in stages and "embedding" in stages[stages.index(WAITING):], stages
    view = ProgressView()
    qtbot.addWidget(view)
    view.start("Re-syncing")
    view.show_progress("Re-syncing", events[stages.index(WAITING)], 1.0)
    assert view.label.full_text() == ("Re-syncing — Waiting — another searchapp process is writing the library; "
                                      "embedding goes on after"), view.label.full_text()
    after = next(e for e in events[stages.index(WAITING):] if e.stage == "embedding")
    view.show_progress("Re-syncing", after, 2.0)
    assert "Embedding" in view.label.full_text() and "Searchable by words" in view.label.full_text(), \
        view.label.full_text()
    assert not hand_raised(data / WANTS) and not hand_raised(data / RESUMES)


WAIT_FOR_LOCK = textwrap.dedent("""
    import sys
    from pathlib import Path
    from searchapp.library.resources.lock import WriterWait, writer_lock
    from searchapp.library.resources.turns import WANTS, raise_hand
    data = Path(sys.argv[1])
    if sys.argv[2] == "hand":  # only the raised hand: a waiter about to take the lock
        raise_hand(data / WANTS)
        print("raised", flush=True)
        sys.stdin.read()
    else:
        with writer_lock(data, WriterWait(None)):
            print("got it", flush=True)
""")


@pytest.mark.parametrize("dies", ["while the holder embeds", "after the holder handed over"])
def test_a_waiter_that_dies_never_stalls_the_holder(tmp_path, backlog, tiny_encoder, dies):
    config, big = backlog
    data = Path(config.data_dir)
    holder_enc = GatedEncoder(tiny_encoder)
    mode = "lock" if dies == "while the holder embeds" else "hand"
    procs: list[subprocess.Popen] = []

    def gate(call: int) -> None:
        if call == 2:  # the holder holds the lock, embedding: the waiter comes now
            procs.append(subprocess.Popen([sys.executable, "-c", WAIT_FOR_LOCK, str(data), mode],
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True))
            until(lambda: hand_raised(data / WANTS))  # it waits for the lock
            if mode == "lock":  # killed mid-wait, before the holder's next batch boundary
                procs[0].send_signal(signal.SIGKILL)
                procs[0].wait(60)

    try:
        with Library(config, encoder=holder_enc) as holder:
            holder.add_folder(big, embed=False)
            holder_enc.gate = gate
            stop = CancelToken()
            holding, held = run_on_thread(lambda: holder.sync(cancel=stop))
            if mode == "hand":  # the holder hands over and waits after the waiter, which dies instead
                until(lambda: hand_raised(data / RESUMES))
                procs[0].send_signal(signal.SIGKILL)
                procs[0].wait(60)
            assert finished(holding, stop) and "error" not in held, held
            assert holder.store.pending_count() == 0
            assert len(holder_enc.texts) == len(set(holder_enc.texts)) == holder.store.chunk_count()
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert procs and procs[0].stdout.read() == ("raised\n" if mode == "hand" else "")  # it never got the lock


def test_a_stopped_waiter_never_stalls_the_holder(tmp_path, backlog, tiny_encoder, monkeypatch):
    """A waiter alive but not running (a `searchapp index` Ctrl-Z'd while it waits, a debugger) keeps its hand
    raised for ever: the holder lets the lock lie free for it a moment only, then takes it back and goes on."""
    from searchapp.library.resources import lock
    from searchapp.library.sync.handover import WAITING

    monkeypatch.setattr(lock, "HAND_GRACE", 0.5)  # a live waiter takes it within 0.2 s
    config, big = backlog
    data = Path(config.data_dir)
    holder_enc = GatedEncoder(tiny_encoder)
    procs: list[subprocess.Popen] = []

    def gate(call: int) -> None:
        if call == 2:  # the holder is embedding: a waiter comes, raises its hand, and is stopped
            procs.append(subprocess.Popen([sys.executable, "-c", WAIT_FOR_LOCK, str(data), "lock"],
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True))
            until(lambda: hand_raised(data / WANTS))
            procs[0].send_signal(signal.SIGSTOP)

    try:
        with Library(config, encoder=holder_enc) as holder:
            holder.add_folder(big, embed=False)
            holder_enc.gate = gate
            stop = CancelToken()
            events: list = []
            holding, held = run_on_thread(lambda: holder.sync(progress=events.append, cancel=stop))
            assert finished(holding, stop) and "error" not in held, held
            assert WAITING in [e.stage for e in events]  # it did hand over, and took the lock back
            assert hand_raised(data / WANTS)  # the stopped waiter's hand is still up
            assert holder.store.pending_count() == 0
            assert len(holder_enc.texts) == len(set(holder_enc.texts)) == holder.store.chunk_count()
    finally:
        for proc in procs:
            proc.kill()  # ends a stopped process too
            proc.send_signal(signal.SIGCONT) if proc.poll() is None else None
            proc.wait(60)
    assert procs and procs[0].stdout.read() == ""  # stopped throughout, it never got the lock


def test_a_model_changed_while_handed_over_stops_the_holder_without_saving_over_the_index(tmp_path, backlog,
                                                                                           tiny_encoder):
    """A reindex with another model let in between batches: the holder takes the lock back, finds the model
    changed and stops; its index from before must not be saved over the one the reindex left."""
    import sqlite3

    from searchapp.base.errors import ModelMismatchError
    from searchapp.library.resources.index_keeper import index_path

    config, big = backlog
    data = Path(config.data_dir)
    holder_enc = GatedEncoder(tiny_encoder)
    theirs = b"the vector index the reindex left"
    seen: dict = {}

    def reindex_meanwhile(db: Path) -> None:
        with writer_lock(data, WriterWait(None)) as turn:
            assert turn.resumer() is not None  # handed over by the holder
            with sqlite3.connect(db) as conn:
                conn.execute("UPDATE meta SET value = 'someone/other-MiniLM' WHERE key = 'model'")
                conn.execute("UPDATE meta SET value = 'another-fingerprint' WHERE key = 'model_fingerprint'")
            conn.close()
            index_path(data, config.index).write_bytes(theirs)

    def gate(call: int) -> None:
        if call == 2:
            seen["other"] = run_on_thread(lambda: reindex_meanwhile(seen["db"]))
            until(lambda: hand_raised(data / WANTS))

    with Library(config, encoder=holder_enc) as holder:
        holder.add_folder(big, embed=False)
        seen["db"] = holder.store.path
        holder_enc.gate = gate
        stop = CancelToken()
        holding, held = run_on_thread(lambda: holder.sync(cancel=stop))
        assert finished(holding, stop)
        other, done = seen["other"]
        other.join(HANG_GUARD_S)
        assert "error" not in done, done
        assert isinstance(held.get("error"), ModelMismatchError), held
        assert index_path(data, config.index).read_bytes() == theirs


HOLD_YIELDING = textwrap.dedent("""
    import sys
    from pathlib import Path
    from searchapp.library.resources.lock import writer_lock
    with writer_lock(Path(sys.argv[1])) as turn:
        turn.say(True)  # as in a meaning pass: it hands over between batches
        print("locked", flush=True)
        sys.stdin.read()
""")


class CountingCancel:
    def __init__(self) -> None:
        self.checks = 0

    def check(self) -> None:
        self.checks += 1
        raise Cancelled("the test ends the wait")


def test_no_wait_refuses_at_once_and_raises_no_hand(tmp_path, monkeypatch):
    from searchapp.library.resources import lock

    data = tmp_path / "lib"
    data.mkdir()
    hands: list = []
    monkeypatch.setattr(lock, "raise_hand", lambda path, text="": hands.append(path))
    holder = subprocess.Popen([sys.executable, "-c", HOLD_YIELDING, str(data)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        info = lock.writer_holder_info(data)
        assert info is not None and info.pid == holder.pid and info.yields
        cancel = CountingCancel()
        with pytest.raises(StoreError, match="another searchapp process is updating the library"):
            with writer_lock(data, WriterWait(0, cancel=cancel)):
                pass
        assert cancel.checks == 0 and hands == []  # not one round of waiting, and the holder was never asked
    finally:
        holder.stdin.close()
        holder.wait(60)


def test_the_waiting_line_says_a_batch_when_the_holder_hands_over(capsys):
    from types import SimpleNamespace

    from searchapp.cli.writer_wait import wait_turn

    lib = SimpleNamespace()
    wait_turn(lib, SimpleNamespace(no_wait=False), None)
    lib.writer_wait.on_wait(Holder(1234, "searchapp gui", yields=True), 0.6)
    lib.writer_wait.on_wait(Holder(1234, "searchapp index /docs"), 0.6)
    err = capsys.readouterr().err.splitlines()
    assert "process 1234 (searchapp gui) to finish its current batch" in err[0] and "--no-wait" in err[0]
    assert "process 1234 (searchapp index /docs) to finish updating the library" in err[1]
