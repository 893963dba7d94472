"""`searchapp --library postgresql://… watch` in a real process (decision 0138): it catches up (waiting while
another process holds the folder's writer lock), then a file
written under this machine's folder reaches the shared library; while another process holds the folder's writer
lock the change waits and is retried, and lands once the lock is let go; between updates, and after Ctrl+C, no
writer lock is held."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from searchapp.library.shared import WRITER_LOCK, RootBusy, SharedLibrary

pytestmark = pytest.mark.subprocess  # a watch process, and the pg_server fixture's PostgreSQL

LOCKS = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = %s AND granted"


class _Lines:
    """A stream's lines, read on a thread as they come."""

    def __init__(self, stream) -> None:
        self.lines: list[str] = []
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream) -> None:
        for line in stream:
            self.lines.append(line)

    def text(self) -> str:
        return "".join(self.lines)


def _until(what, proc: subprocess.Popen, err: _Lines) -> None:
    """Wait for `what()` (up to 300 s on a busy machine: not a timing assertion), the watch still running."""
    for _ in range(6000):
        if what():
            return
        assert proc.poll() is None, err.text()[-2000:]
        time.sleep(0.05)
    raise AssertionError(err.text()[-2000:])


# `searchapp watch` as `python -m searchapp` runs it, with the catch-up trying again every 0.5 s instead of every
# BUSY_RETRY_S (5 s): that it waits for the held folder and then lands is tested, not how often it asks.
_WATCH = ("import sys\nfrom searchapp.cli.commands import shared_watch\nshared_watch.BUSY_RETRY_S = 0.5\n"
          "from searchapp.cli.entry import main\nraise SystemExit(main(sys.argv[1:]))\n")


def _found(lib: SharedLibrary, words: str) -> list[str]:
    return [Path(h.path).name for h in lib.search(words, mode="lexical").hits]


def test_watch_syncs_a_change_waits_for_a_held_folder_and_leaves_no_lock(tmp_path, make_config, tiny_encoder,
                                                                         tiny_bi_encoder_dir, pg_server, pg_address):
    data = tmp_path / "lib"
    data.mkdir()
    (data / "config.toml").write_text(f'[models]\nbi_encoder = "{tiny_bi_encoder_dir}"\nreranker = ""\n',
                                      encoding="utf-8")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "old.txt").write_text("alder note about the orchard", encoding="utf-8")
    config = make_config(models={"reranker": ""})
    with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder, machine="desk-a") as lib:
        lib.add_folder(docs)
    (docs / "while-away.txt").write_text("an otter swims at dusk", encoding="utf-8")  # for the catch-up
    holder = SharedLibrary(config, pg_address, machine="desk-a")  # another process syncing the folder
    root = holder.store.root_by_path(str(docs))
    assert root is not None and holder.store.try_root_locks([root.id]) is None
    env = {**os.environ, "SEARCHAPP_MACHINE": "desk-a", "HF_HUB_OFFLINE": "1"}
    watch = subprocess.Popen([sys.executable, "-c", _WATCH, "--data-dir", str(data), "--library", pg_address,
                              "watch", "--debounce", "0.2"], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    out, err = _Lines(watch.stdout), _Lines(watch.stderr)
    try:
        _until(lambda: "searchapp: waiting: another process is syncing" in err.text(), watch, err)  # the catch-up
        assert "caught up" not in out.text()
        holder.close()  # its lock goes with its connection
        _until(lambda: "watching 1 folder(s)" in out.text(), watch, err)
        assert "caught up: 1 added" in out.text()
        with SharedLibrary(config, pg_address, encoder=tiny_encoder, machine="desk-a") as lib:
            assert _found(lib, "otter") == ["while-away.txt"]
            (docs / "new.txt").write_text("a kingfisher dives by the river", encoding="utf-8")
            _until(lambda: _found(lib, "kingfisher") == ["new.txt"], watch, err)
            # its line, printed after the update's locks go (not the catch-up's "caught up: 1 added")
            _until(lambda: f"1 added: {docs / 'new.txt'}" in out.text(), watch, err)
            assert pg_server.admin(LOCKS, params=(WRITER_LOCK,)) == [(0,)]  # the update let its folder go

            # Another process (this one) syncs the folder: the watch's update waits, retries, then lands.
            root = lib.store.root_by_path(str(docs))
            assert root is not None and lib.store.try_root_locks([root.id]) is None
            (docs / "heron.txt").write_text("a grey heron stands in the reeds", encoding="utf-8")
            # its own refusal, not the catch-up's "waiting: another process is syncing" line above
            _until(lambda: "live update failed (will retry): another process is syncing" in err.text(), watch, err)
            assert "retrying in" not in err.text()  # said once: not also by the watcher's log
            assert _found(lib, "heron") == []
            lib.store.release_root_locks([root.id])
            _until(lambda: _found(lib, "heron") == ["heron.txt"], watch, err)
        watch.send_signal(signal.SIGINT)  # Ctrl+C
        assert watch.wait(timeout=300) == 0, err.text()[-2000:]
    finally:
        holder.close()
        if watch.poll() is None:
            watch.kill()
            watch.wait()
    assert "stopped watching" in out.text()
    assert pg_server.admin(LOCKS, params=(WRITER_LOCK,)) == [(0,)]
    with SharedLibrary(config, pg_address, encoder=tiny_encoder, machine="desk-a") as lib:
        assert lib.sync().added == 0  # nothing left to do, and no folder held
        assert lib.summary().embedded == lib.summary().passages == 4  # each change's meaning too


def test_a_held_folder_is_refused_to_a_live_update(tmp_path, make_config, tiny_encoder, pg_address):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("alder note about the orchard", encoding="utf-8")
    config = make_config(models={"reranker": ""})
    with SharedLibrary(config, pg_address, create=True, encoder=tiny_encoder, machine="desk-a") as a, \
            SharedLibrary(config, pg_address, encoder=tiny_encoder, machine="desk-a") as other:
        a.add_folder(docs)
        root = a.store.root_by_path(str(docs))
        assert root is not None and other.store.try_root_locks([root.id]) is None
        (docs / "b.txt").write_text("birch bark peels in thin curls", encoding="utf-8")
        with pytest.raises(RootBusy, match="another process is syncing"):
            a.sync_changed([str(docs / "b.txt")])
        assert _found(a, "birch") == []
        other.store.release_root_locks([root.id])
        assert a.sync_changed([str(docs / "b.txt"), str(tmp_path / "elsewhere.txt")]).added == 1
        assert _found(a, "birch") == ["b.txt"]
