"""Live updates with real files and real watchdog events (inotify here): create, edit, delete, rename, move a
folder; each change is indexed through the path-restricted sync. Waits are bounded polls, never fixed sleeps."""

from __future__ import annotations

import errno
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from searchapp.library import Library
from searchapp.library.sync.roots import in_scope

WAIT = 20.0  # seconds: an upper bound for an event + debounce + sync, normally well under a second


@pytest.fixture
def live(make_config, tiny_encoder, tmp_path):
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "a.txt").write_text("Copper kettles whistle when the water boils.", encoding="utf-8")
    (docs / "sub" / "b.md").write_text("# Falcons\n\nThe peregrine falcon dives faster than any bird.", encoding="utf-8")
    lib = Library(make_config(), encoder=tiny_encoder)
    lib.add_folder(docs)
    changes: queue.Queue = queue.Queue()
    lib.start_watching(lambda rep, paths: changes.put((rep, paths)), debounce=0.2)
    yield lib, docs, changes
    lib.close()


def wait_for(changes: queue.Queue, pred, what: str):
    """Take applied batches until `pred(report, paths)` holds; fail after WAIT seconds."""
    deadline = time.monotonic() + WAIT
    seen = []
    while time.monotonic() < deadline:
        try:
            rep, paths = changes.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            break
        seen.append((rep.added, rep.updated, rep.removed, paths))
        if pred(rep, paths):
            return rep
    pytest.fail(f"no live update for {what} within {WAIT} s; saw {seen}")


def indexed(lib: Library) -> set[str]:
    return {Path(p).relative_to(lib.store.roots()[0].path).as_posix()
            for p, in lib.store.conn.execute("SELECT path FROM files WHERE status = 'indexed'")}


def lexical(lib: Library, q: str) -> list[str]:
    return [Path(h.path).name for h in lib.search(q, mode="lexical").hits]


def test_create_edit_delete_rename_and_folder_move(live):
    lib, docs, changes = live
    assert lib._watcher.running and lib._watcher.mode == "events"

    (docs / "c.txt").write_text("Glaciers carve valleys over thousands of years.", encoding="utf-8")
    wait_for(changes, lambda r, p: r.added == 1, "a new file")
    assert lexical(lib, "glaciers valleys") == ["c.txt"]

    (docs / "a.txt").write_text("Copper kettles whistle. Walnut shells crack in the oven.", encoding="utf-8")
    rep = wait_for(changes, lambda r, p: r.updated == 1, "an edit")
    assert rep.chunks_embedded <= 1  # only the changed passage
    assert lexical(lib, "walnut shells") == ["a.txt"]

    (docs / "c.txt").rename(docs / "glacier.txt")
    rep = wait_for(changes, lambda r, p: r.removed >= 1, "a rename")
    assert rep.chunks_embedded == 0  # a rename re-embeds nothing
    assert rep.moved == 1 and rep.said("added", "removed", zeros=False) == "1 renamed or moved"
    assert lexical(lib, "glaciers valleys") == ["glacier.txt"]

    (docs / "sub").rename(docs / "birds")
    wait_for(changes, lambda r, p: r.removed >= 1 or r.added >= 1, "a folder move")
    deadline = time.monotonic() + WAIT
    while "birds/b.md" not in indexed(lib) and time.monotonic() < deadline:
        wait_for(changes, lambda r, p: True, "the rest of the folder move")
    assert indexed(lib) == {"a.txt", "glacier.txt", "birds/b.md"}

    (docs / "a.txt").unlink()
    wait_for(changes, lambda r, p: r.removed == 1, "a deletion")
    assert lexical(lib, "walnut") == []
    st = lib.status()
    assert st.consistent and st.vectors == st.chunks


def test_hidden_and_skipped_folders_cause_no_sync(live):
    lib, docs, changes = live
    (docs / ".git").mkdir()
    (docs / ".git" / "HEAD.txt").write_text("ref: refs/heads/main", encoding="utf-8")
    (docs / "node_modules").mkdir()
    (docs / "node_modules" / "x.txt").write_text("dependency text", encoding="utf-8")
    (docs / "visible.txt").write_text("Lanterns glow in the harbor at night.", encoding="utf-8")
    synced: list[str] = []
    wait_for(changes, lambda r, p: synced.extend(p) or r.added == 1, "the visible file")
    assert synced and all(".git" not in p and "node_modules" not in p for p in synced)
    assert indexed(lib) == {"a.txt", "sub/b.md", "visible.txt"}


def test_in_scope_rules(tmp_path):
    root = str(tmp_path / "r")
    assert in_scope(root, root, ())
    assert in_scope(root, f"{root}/a/b.txt", ())
    assert not in_scope(root, f"{root}x/b.txt", ())  # a sibling that shares the prefix
    assert not in_scope(root, f"{root}/.git/config", ())
    assert not in_scope(root, f"{root}/node_modules/x.txt", ("node_modules",))
    assert not in_scope(root, str(tmp_path / "elsewhere.txt"), ())


def test_polling_fallback_when_out_of_inotify_watches(make_config, tiny_encoder, tmp_path, monkeypatch):
    """The inotify limit cannot be lowered here (it is a system-wide sysctl), so the observer's start is made
    to fail with the exact error watchdog raises for it; everything after that is real."""
    import watchdog.observers

    real = watchdog.observers.Observer

    class NoWatchesLeft(real):
        def start(self):
            raise OSError(errno.ENOSPC, "inotify watch limit reached")

    monkeypatch.setattr(watchdog.observers, "Observer", NoWatchesLeft)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "loop").symlink_to("..")  # a link to a folder above: polling walked it ~40 levels deep
    lib = Library(make_config(), encoder=tiny_encoder)
    try:
        lib.add_folder(docs)
        changes: queue.Queue = queue.Queue()
        watcher = lib.start_watching(lambda rep, paths: changes.put((rep, paths)), debounce=0.1, poll_interval=0.2)
        assert watcher.mode == "polling" and "max_user_watches" in watcher.note
        (docs / "late.txt").write_text("Thunder rolls across the canyon.", encoding="utf-8")
        got: list = []
        wait_for(changes, lambda r, p: r.added == 1 and not got.extend(p), "a file seen by polling")
        assert got == [str(docs / "late.txt")]  # not also …/loop/docs/late.txt, …/loop/docs/loop/docs/late.txt
        assert lexical(lib, "thunder canyon") == ["late.txt"]
    finally:
        lib.close()
    assert not watcher.running


def test_sync_changed_touches_only_the_given_paths(make_config, tiny_encoder, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(5):
        (docs / f"f{i}.txt").write_text(f"Document number {i} about quartz and marble.", encoding="utf-8")
    lib = Library(make_config(), encoder=tiny_encoder)
    try:
        lib.add_folder(docs)
        (docs / "f0.txt").write_text("Changed text about velvet saddles.", encoding="utf-8")
        (docs / "f1.txt").write_text("Also changed, but not reported to the sync.", encoding="utf-8")
        (docs / "f2.txt").unlink()
        rep = lib.sync_changed([str(docs / "f0.txt"), str(docs / "f2.txt"), "/elsewhere/x.txt"])
        assert (rep.scanned, rep.updated, rep.removed) == (1, 1, 1)
        assert lexical(lib, "velvet saddles") == ["f0.txt"]
        assert lexical(lib, "reported") == []  # f1 was not in the list: untouched until a full sync
        assert lib.sync().updated == 1
    finally:
        lib.close()


def test_cli_watch_prints_one_line_per_change(tmp_path, tiny_bi_encoder_dir, tiny_encoder):
    from searchapp.base.config import load_config

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "seed.txt").write_text("Seed text about orbit and compass.", encoding="utf-8")
    env = {**os.environ, "SEARCHAPP_MODELS__BI_ENCODER": str(tiny_bi_encoder_dir),
           "SEARCHAPP_MODELS__RERANKER": "", "SEARCHAPP_MODELS__PRECISION": "fp32", "SEARCHAPP_MODELS__THREADS": "1"}
    with Library(load_config(tmp_path / "lib", env=env), encoder=tiny_encoder) as lib:  # same model as the CLI's
        lib.add_folder(docs)
    cli = [sys.executable, "-m", "searchapp", "--data-dir", str(tmp_path / "lib")]
    proc = subprocess.Popen(cli + ["watch", "--debounce", "0.2"], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        lines = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            lines.append(line)
            if line.startswith("watching"):
                break
        assert lines[-1].startswith("watching 1 folder(s) (events)"), (lines, proc.stderr.read() if proc.poll() is not None else "")
        (docs / "new.txt").write_text("Harvest beacon tundra.", encoding="utf-8")
        line = proc.stdout.readline()
        assert "1 added" in line and "new.txt" in line
        # a second watch of the same library: refused at once, naming the first (it synced every change again)
        second = subprocess.run(cli + ["watch"], env=env, text=True, capture_output=True, timeout=120)
        assert second.returncode == 1, second
        assert f"this library is already watched (process {proc.pid}, searchapp watch)" in second.stderr, second.stderr
    finally:
        proc.send_signal(2)  # Ctrl+C
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "stopped watching" in out


def test_a_folder_another_library_adds_is_watched_too(live, make_config, tiny_encoder, tmp_path, monkeypatch):
    """`searchapp watch` read the folder list once: a folder the window added later was never watched. The other
    writer here is a second Library on the same data dir (another process's, in all but its pid)."""
    from searchapp.library.sync import watch

    lib, docs, changes = live
    monkeypatch.setattr(watch, "ROOTS_EVERY_S", 0.2)
    lib.stop_watching()  # started again below with the short folder-list period
    lib.start_watching(lambda rep, paths: changes.put((rep, paths)), debounce=0.2)
    later = tmp_path / "later"
    later.mkdir()
    (later / "first.txt").write_text("Barnacles cling to the pier.", encoding="utf-8")
    with Library(make_config(), encoder=tiny_encoder) as other:
        assert other.add_folder(later, embed=False).added == 1
    deadline = time.monotonic() + WAIT
    while str(later) not in lib._watcher._roots and time.monotonic() < deadline:
        time.sleep(0.05)
    (later / "second.txt").write_text("Anemones wave in the tide pool.", encoding="utf-8")
    wait_for(changes, lambda rep, paths: any(p.endswith("second.txt") for p in paths), "a file in a folder "
             "another process added")
    assert lexical(lib, "anemones") == ["second.txt"]


def test_stopping_drops_watchdogs_inactive_thread_error_only(live):
    """Ctrl+C of `searchapp watch` printed watchdog's "queue_events() called when the thread is inactive"."""
    import logging

    lib, _, _ = live
    lib.stop_watching()
    log = logging.getLogger("watchdog.observers.inotify")

    def record(msg: str) -> logging.LogRecord:
        return logging.LogRecord(log.name, logging.ERROR, __file__, 0, msg, None, None)

    assert not log.filter(record("InotifyEmitter.queue_events() called when the thread is inactive"))
    assert log.filter(record("a real inotify error"))


def test_a_database_error_reading_the_folder_list_does_not_end_the_watch(live, monkeypatch):
    """A raw SQLite error ("database is locked") in the folder-list look ended the watch's thread: `searchapp watch`
    went on running, syncing nothing and holding its lock."""
    import sqlite3

    from searchapp.library.sync import watch

    lib, docs, changes = live
    monkeypatch.setattr(watch, "ROOTS_EVERY_S", 0.05)
    lib.stop_watching()
    lib.start_watching(lambda rep, paths: changes.put((rep, paths)), debounce=0.2)
    real, failures = lib.reader, []

    def locked():
        failures.append(1)
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(lib._watcher.library, "reader", locked)
    deadline = time.monotonic() + WAIT
    while len(failures) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    monkeypatch.setattr(lib._watcher.library, "reader", real)
    assert len(failures) >= 3 and lib._watcher.running
    (docs / "after.txt").write_text("Lighthouses guide the ships at night.", encoding="utf-8")
    wait_for(changes, lambda rep, paths: any(p.endswith("after.txt") for p in paths), "a change after the errors")


@pytest.mark.parametrize("how", ["removed", "renamed"])
def test_a_watched_folder_that_goes_away_and_comes_back_is_watched_again_and_caught_up(live, monkeypatch, tmp_path,
                                                                                      how):
    """A tester unplugged and plugged in a drive (here: the folder removed, or renamed away, and put back): watch
    never saw that folder again, even its new files, until restarted, and said nothing. It is watched anew when
    it is back, what changed while it was away is read, and later edits are seen again."""
    import shutil

    from searchapp.library.sync import watch

    lib, docs, changes = live
    monkeypatch.setattr(watch, "ROOTS_EVERY_S", 0.2)
    lib.stop_watching()  # started again below with the short folder-list period
    lib.start_watching(lambda rep, paths: changes.put((rep, paths)), debounce=0.2)
    away = tmp_path / "away"
    if how == "removed":
        shutil.copytree(docs, away)
        shutil.rmtree(docs)
    else:
        docs.rename(away)
    deadline = time.monotonic() + WAIT  # the look at the folders every ROOTS_EVERY_S finds it gone
    while str(docs) not in lib._watcher._away and time.monotonic() < deadline:
        time.sleep(0.05)
    assert str(docs) in lib._watcher._away
    (away / "while-away.txt").write_text("Walruses haul out on the ice floe.", encoding="utf-8")
    if how == "removed":
        shutil.copytree(away, docs)
    else:
        away.rename(docs)
    wait_for(changes, lambda rep, paths: lexical(lib, "walruses") == ["while-away.txt"], "the catch-up when it "
             "is back")
    (docs / "after.txt").write_text("Puffins nest in burrows on the cliff.", encoding="utf-8")
    # by its own event, or by the catch-up where the watch thread was still syncing when the folder came back
    wait_for(changes, lambda rep, paths: lexical(lib, "puffins") == ["after.txt"], "an edit after it is back")


def test_a_change_of_permissions_alone_is_synced(live):
    """A tester made a file unreadable, then readable again: watch never read it again (watchdog reports a chmod
    as "attrib", which was not listened to), so it stayed failed until a full sync. A chmod is a change now."""
    lib, docs, changes = live
    target = docs / "a.txt"
    os.chmod(target, 0o600)  # nothing else changes: no write, no move
    wait_for(changes, lambda rep, paths: str(target) in paths, "a chmod")
    os.chmod(docs / "sub", 0o700)  # a folder's: what is below it is read again
    wait_for(changes, lambda rep, paths: str(docs / "sub") in paths, "a folder's chmod")


def test_a_folder_put_back_by_undo_gets_the_files_made_while_it_was_out(live, make_config, tiny_encoder,
                                                                      monkeypatch):
    """A tester removed a watched folder, wrote a file in it, then undid the remove: the folder came back as it
    was, and the new file was never indexed until watch restarted. A folder put back is read again."""
    from searchapp.library.sync import watch

    lib, docs, changes = live
    monkeypatch.setattr(watch, "ROOTS_EVERY_S", 0.2)
    lib.stop_watching()  # started again below with the short folder-list period
    lib.start_watching(lambda rep, paths: changes.put((rep, paths)), debounce=0.2)
    with Library(make_config(), encoder=tiny_encoder) as other:  # the window or a CLI: another writer
        other.remove_folder(docs, undoable=True)
        deadline = time.monotonic() + WAIT
        while str(docs) not in lib._watcher._dropped and time.monotonic() < deadline:
            time.sleep(0.05)
        assert str(docs) in lib._watcher._dropped
        (docs / "meanwhile.txt").write_text("Otters crack shells on their bellies.", encoding="utf-8")
        other.undo_remove()
    wait_for(changes, lambda rep, paths: lexical(lib, "otters") == ["meanwhile.txt"], "the folder put back")


@pytest.fixture
def often(live, monkeypatch):
    """`live` with the folder list read every 0.2 s."""
    from searchapp.library.sync import watch

    lib, docs, changes = live
    monkeypatch.setattr(watch, "ROOTS_EVERY_S", 0.2)
    lib.stop_watching()  # started again with the short folder-list period
    lib.start_watching(lambda rep, paths: changes.put((rep, paths)), debounce=0.2)
    return lib, docs, changes


def test_a_folder_deleted_and_made_again_at_once_is_still_watched(often):
    """A reviewer's `rm -rf docs && mkdir docs`: ext4 gives the new folder the old inode, so its identity alone
    could not tell the watch had ended with the old one; the handler's own event for the folder does."""
    import shutil

    lib, docs, changes = often
    shutil.rmtree(docs)
    docs.mkdir()
    (docs / "new.txt").write_text("Walruses haul out on the ice floe.", encoding="utf-8")
    wait_for(changes, lambda rep, paths: lexical(lib, "walruses") == ["new.txt"], "the folder made again")
    (docs / "later.txt").write_text("Puffins nest in burrows on the cliff.", encoding="utf-8")
    wait_for(changes, lambda rep, paths: lexical(lib, "puffins") == ["later.txt"], "an edit after it")


def test_two_file_roots_in_one_folder_share_its_watch(make_config, tiny_encoder, tmp_path, monkeypatch):
    """A reviewer's two single-file roots side by side: deleting one ended the folder's watch for both (watchdog
    keeps one watch per folder), so the other's edits were never seen again."""
    from searchapp.library.sync import watch

    monkeypatch.setattr(watch, "ROOTS_EVERY_S", 0.2)
    home = tmp_path / "home"
    home.mkdir()
    a, b = home / "a.txt", home / "b.txt"
    a.write_text("Ravens cache food for winter.", encoding="utf-8")
    b.write_text("Herons stand still in the shallows.", encoding="utf-8")
    changes: queue.Queue = queue.Queue()
    with Library(make_config(), encoder=tiny_encoder) as lib:
        lib.add_folder(a)
        lib.add_folder(b)
        watcher = lib.start_watching(lambda rep, paths: changes.put((rep, paths)), debounce=0.2)
        a.unlink()
        looks = watcher.refreshes
        deadline = time.monotonic() + WAIT  # two looks at the folder list: none may take b's watch with a's
        while watcher.refreshes < looks + 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert watcher.refreshes >= looks + 2
        b.write_text("Herons stand still and spear fish in the shallows.", encoding="utf-8")
        wait_for(changes, lambda rep, paths: str(b) in paths, "an edit of the other file root")
        assert lexical(lib, "spear") == ["b.txt"]


def test_a_steady_stream_of_changes_does_not_stop_the_folder_list_being_read(often, make_config, tiny_encoder,
                                                                            tmp_path):
    """A reviewer's log file written every 0.4 s: the folder list was read only after a quiet moment, so a folder
    another process added was never watched while it was written."""
    import threading

    lib, docs, changes = often
    later = tmp_path / "later"
    later.mkdir()
    (later / "first.txt").write_text("Penguins huddle for warmth.", encoding="utf-8")
    stop = threading.Event()

    def ticker() -> None:
        i = 0
        while not stop.is_set():
            (docs / "log.txt").write_text(f"tick {i}", encoding="utf-8")
            i += 1
            stop.wait(0.1)

    thread = threading.Thread(target=ticker, daemon=True)
    thread.start()
    try:
        with Library(make_config(), encoder=tiny_encoder) as other:
            other.add_folder(later, embed=False)
        folders = lib._watcher._folders
        deadline = time.monotonic() + WAIT  # watched from the next look at the folder list, events or not
        while not folders.has(str(later)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert folders.has(str(later))
        (later / "second.txt").write_text("Seals nap on the warm rocks.", encoding="utf-8")
        wait_for(changes, lambda rep, paths: any(p.endswith("second.txt") for p in paths), "a file in a folder "
                 "another process added, while another file changes all the time")
    finally:
        stop.set()
        thread.join()


def test_an_undo_in_this_process_reads_the_files_made_meanwhile_at_once(often, monkeypatch):
    """A reviewer's Remove, new file, Undo within one look at the folder list (the window's quick Undo): the folder
    came back as it was and the new file was never read. The library tells its own watcher."""
    from searchapp.library.sync import watch

    lib, docs, changes = often
    monkeypatch.setattr(watch, "ROOTS_EVERY_S", 3600.0)  # no look at the folder list between the two
    lib.stop_watching()
    lib.start_watching(lambda rep, paths: changes.put((rep, paths)), debounce=0.2)
    lib.remove_folder(docs, undoable=True)
    (docs / "meanwhile.txt").write_text("Otters crack shells on their bellies.", encoding="utf-8")
    # its event's sync ran while the folder was out of the library: it found nothing to sync
    wait_for(changes, lambda rep, paths: any(p.endswith("meanwhile.txt") for p in paths), "the file's event")
    assert lexical(lib, "otters") == [] and lib.undo_remove() is not None
    wait_for(changes, lambda rep, paths: lexical(lib, "otters") == ["meanwhile.txt"], "the undo's catch-up")


# watchdog's own inotify bookkeeping warns when a deleted folder's watch number comes back at once ("Callback with
# id … already exists"): its noise under this stress, not the watcher's
@pytest.mark.filterwarnings("ignore:Callback with id:RuntimeWarning")
def test_folders_made_and_deleted_while_roots_are_added_never_deadlock(tmp_path):
    """A reviewer's build in one root (folders made and deleted all the time) while folders were added: watchdog
    calls the handler holding its observer's lock, which the add's schedule wants too, while the handler wanted
    the lock the add held. add_folder hung, then stop() did. Each add and the stop must return."""
    import threading
    import types

    from searchapp.library.sync.watch import LibraryWatcher

    x = tmp_path / "x"
    x.mkdir()
    stored = [str(x)]

    class Lib:  # the watcher's side of a library, with nothing to sync: only the watching is under test
        data_dir = tmp_path / "data"
        config = types.SimpleNamespace(scan=types.SimpleNamespace(skip_dirs=(), exclude=()))

        def reader(self):
            return types.SimpleNamespace(roots=lambda: [types.SimpleNamespace(path=p) for p in list(stored)])

        def sync_changed(self, changed, cancel=None):
            from searchapp.library.sync.contract import SyncReport

            return SyncReport()

    watcher = LibraryWatcher(Lib(), debounce=0.5)
    watcher.start()
    stop = threading.Event()

    def build() -> None:
        i = 0
        while not stop.is_set():
            d = x / "build" / f"obj{i % 20}"
            d.mkdir(parents=True, exist_ok=True)
            os.rmdir(d)
            i += 1

    builder = threading.Thread(target=build, daemon=True)
    builder.start()
    try:
        for i in range(60):
            new = tmp_path / f"new{i}"
            new.mkdir()
            stored.append(str(new))
            add = threading.Thread(target=watcher.add_root, args=(str(new),), daemon=True)
            add.start()
            add.join(WAIT)
            assert not add.is_alive(), f"add_root hung at folder {i}"
    finally:
        stop.set()
        builder.join(WAIT)
        closing = threading.Thread(target=watcher.stop, daemon=True)
        closing.start()
        closing.join(WAIT)
    assert not closing.is_alive(), "stop() hung"


def test_a_folder_missing_when_watching_starts_is_read_when_it_is_plugged_in(live, monkeypatch, tmp_path):
    """A drive unplugged when `watch` started: once plugged in it was watched, but what changed on it since the
    last sync was never read. It is caught up as a folder back from away is."""
    from searchapp.library.sync import watch

    lib, docs, changes = live
    monkeypatch.setattr(watch, "ROOTS_EVERY_S", 0.2)
    lib.stop_watching()
    away = tmp_path / "unplugged"
    docs.rename(away)
    lib.start_watching(lambda rep, paths: changes.put((rep, paths)), debounce=0.2)
    (away / "on-the-drive.txt").write_text("Lichens grow on the north side of old stones.", encoding="utf-8")
    away.rename(docs)
    wait_for(changes, lambda rep, paths: lexical(lib, "lichens") == ["on-the-drive.txt"], "the drive plugged in")


class GatedEncoder:
    """The real tiny encoder; once `arm`ed, its next encode waits for `release` (a live update held mid-embedding,
    where a long one spends its minutes), and the encodes after arming are counted."""

    def __init__(self, inner) -> None:
        self._inner = inner
        self.armed, self.entered, self.release = False, threading.Event(), threading.Event()
        self.calls = 0

    def __getattr__(self, name):
        return getattr(self._inner, name)

    def arm(self) -> None:
        self.armed = True

    def encode(self, texts, **kw):
        if self.armed:
            self.calls += 1
            self.entered.set()
            assert self.release.wait(WAIT)
        return self._inner.encode(texts, **kw)


def test_stopping_the_watch_stops_the_live_update_in_flight(make_config, tiny_encoder, tmp_path):
    """A folder of many files copied in while watching is minutes of embedding on an ordinary laptop: a `kill` or
    Ctrl+C of `watch` waited for all of it (the live update had no cancel). Now the update stops at its next
    batch, what it finished kept and said, and the next sync reads and embeds the rest."""
    from searchapp.base.errors import Cancelled

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Copper kettles whistle when the water boils.", encoding="utf-8")
    gate = GatedEncoder(tiny_encoder)
    lib = Library(make_config(models={"reranker": "", "batch_size": 4}), encoder=gate)
    try:
        lib.add_folder(docs)
        errors: queue.Queue = queue.Queue()
        watcher = lib.start_watching(on_error=errors.put, debounce=0.2)
        gate.arm()
        for i in range(40):  # ten batches of four passages
            (docs / f"n{i:02d}.txt").write_text(f"Note {i}: the heron {i} waded through reeds {i * 7}.",
                                                encoding="utf-8")
        assert gate.entered.wait(WAIT), "the live update never embedded"
        stopping = threading.Thread(target=lib.stop_watching, daemon=True)
        stopping.start()
        deadline = time.monotonic() + WAIT
        while not watcher.cancel.cancelled and time.monotonic() < deadline:
            time.sleep(0.01)
        gate.release.set()
        stopping.join(WAIT)
        assert not stopping.is_alive(), "stop_watching waited for the whole live update"
        assert gate.calls == 1, f"{gate.calls} batches embedded after the stop was asked"
        assert isinstance(errors.get_nowait(), Cancelled)  # said (the command line prints how far it got)
        assert lib.store.pending_count() > 0  # the rest waits; nothing half-written
        gate.armed = False
        lib.sync()  # what `watch`'s catch-up does at its next start
        assert lib.store.pending_count() == 0
        assert len(indexed(lib)) == 41
    finally:
        lib.close()
