"""A sync steps aside for a search: while one runs (in this process or another), the sync waits at its next
point to stop. Observed through the encoder's calls and the pauses counted, never through timings."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from searchapp.base.errors import Cancelled
from searchapp.base.progress import CancelToken
from searchapp.library import Library
from searchapp.library.resources import in_flight
from searchapp.library.resources.in_flight import SearchesInFlight, YieldingCancel
from searchapp.library.sync import words_pass as sync_module

REPO = Path(__file__).resolve().parents[3]
TOPICS = ["glaciers", "volcanoes", "coral reefs", "deserts", "rainforests", "tundra", "estuaries", "caves"]


class HeldEncoder:
    """The tiny encoder; its first passage batch waits for `go`, and a query waits for `release` (a search in
    flight for as long as the test wants). Each passage batch records its size and whether a search was open."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.sync_started, self.go = threading.Event(), threading.Event()
        self.search_open, self.release = threading.Event(), threading.Event()
        self.calls: list[tuple[int, bool]] = []

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def encode(self, texts, **kw):
        self.calls.append((len(texts), self.search_open.is_set()))
        if len(self.calls) == 1:
            self.sync_started.set()
            assert self.go.wait(60)
        return self.inner.encode(texts, **kw)

    def encode_query(self, text):
        self.search_open.set()
        try:
            assert self.release.wait(60)
        finally:
            self.search_open.clear()
        return self.inner.encode_query(text)


def wait_for(cond, what: str) -> None:
    done = threading.Event()
    for _ in range(600):
        if cond():
            return
        done.wait(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def test_a_sync_waits_while_a_search_runs(make_config, tiny_encoder, tmp_path, monkeypatch):
    first, docs = tmp_path / "first", tmp_path / "docs"
    for folder, n in ((first, 4), (docs, 40)):
        folder.mkdir()
        for i in range(n):
            (folder / f"n{i:02d}.txt").write_text(f"Field note {i} in {folder.name} on {TOPICS[i % len(TOPICS)]}: "
                                                  f"sample {i * 7} was taken at site {i}, its layers counted twice.\n",
                                                  encoding="utf-8")
    monkeypatch.setattr(sync_module, "BATCH_CHUNKS", 12)  # several meaning batches
    monkeypatch.setattr(in_flight, "PAUSE_CAP", 120.0)  # the test ends the search, not the cap
    monkeypatch.setattr(in_flight, "MIN_WORK", 0.0)  # every point to stop is one to step aside at
    enc = HeldEncoder(tiny_encoder)
    lib = Library(make_config(models={"reranker": ""}), encoder=enc)
    errors: list[BaseException] = []
    results: list = []

    def run(fn):
        try:
            results.append(fn())
        except BaseException as exc:  # reported by the test thread
            errors.append(exc)

    try:
        enc.go.set()
        lib.add_folder(first)  # something with vectors, so a search encodes its query
        enc.go.clear()
        enc.calls.clear()
        enc.sync_started.clear()
        sync = threading.Thread(target=run, args=(lambda: lib.add_folder(docs),))
        sync.start()
        assert enc.sync_started.wait(60), "the meaning pass never started"
        search = threading.Thread(target=run, args=(lambda: lib.search("coral reefs sample", mode="dense"),))
        search.start()
        assert enc.search_open.wait(60)
        enc.go.set()  # the sync finishes its first batch with a search in flight
        wait_for(lambda: lib._in_flight.waits >= 1 or not sync.is_alive(), "the sync to pause")
        assert sync.is_alive() and len(enc.calls) == 1  # it waits before its next batch
        enc.release.set()
        search.join(60)
        sync.join(120)
        assert not errors, errors
        assert not any(open_ for _, open_ in enc.calls), enc.calls  # no passage batch began during the search
        assert [n for n, _ in enc.calls] == [12, 12, 12, 4]  # every passage once, in the sync's batches
        embedded, total = lib.meaning()
        assert embedded == total == 44
        assert lib.search("coral reefs sample", mode="dense").hits
    finally:
        enc.go.set()
        enc.release.set()
        lib.close()


def test_another_processes_search_is_seen_through_the_lock_file(tmp_path, monkeypatch):
    monkeypatch.setattr(in_flight, "_POLL", 0.0)  # look at the file on every call
    sync_side = SearchesInFlight(tmp_path)
    assert not sync_side.busy()  # no file yet: nobody searches
    script = ("import sys\nfrom searchapp.library.resources.in_flight import SearchesInFlight\n"
              f"s = SearchesInFlight({str(tmp_path)!r})\n"
              "with s.running():\n    print('searching', flush=True)\n    sys.stdin.readline()\n")
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdout.readline().strip() == "searching"
        assert sync_side.busy()
        assert (tmp_path / in_flight.LOCK_NAME).stat().st_mode & 0o077 == 0  # private, like the data dir
        proc.stdin.write("\n")
        proc.stdin.flush()
        assert proc.wait(30) == 0
        assert not sync_side.busy()
    finally:
        proc.kill()
        sync_side.close()


def test_a_search_never_waits_for_the_sync_that_is_looking(tmp_path):
    """The sync tests the lock by taking it exclusively for an instant; a search arriving then goes on."""
    fcntl = pytest.importorskip("fcntl")
    searching = SearchesInFlight(tmp_path)
    with searching.running():  # creates the file
        pass
    fd = open(tmp_path / in_flight.LOCK_NAME, "rb")
    fcntl.flock(fd, fcntl.LOCK_EX)  # as a sync's probe holds it
    entered = threading.Event()

    def search():
        with searching.running():
            entered.set()

    t = threading.Thread(target=search, daemon=True)
    t.start()
    try:
        assert entered.wait(30), "a search waited for the lock"
        t.join(30)
    finally:
        fd.close()
        searching.close()


def test_a_cancel_ends_a_pause(tmp_path, monkeypatch):
    monkeypatch.setattr(in_flight, "MIN_WORK", 0.0)
    searching, sync_side = SearchesInFlight(tmp_path), SearchesInFlight(tmp_path)
    inner = CancelToken()
    token = YieldingCancel(inner, sync_side, cap=600)
    raised: list[BaseException] = []

    def check():
        try:
            token.check()
        except Cancelled as exc:
            raised.append(exc)

    with searching.running():
        t = threading.Thread(target=check, daemon=True)
        t.start()
        wait_for(lambda: sync_side.waits >= 1, "the pause")
        inner.cancel()  # the person's Cancel, on their own token
        t.join(30)
        assert not t.is_alive() and raised
    assert token.cancelled
    searching.close()
    sync_side.close()
