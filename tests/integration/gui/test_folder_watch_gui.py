"""The window keeps its folders current while it is open (decision 0165): a file saved under an indexed folder is
found a moment later without a Re-sync, through a write of the window's own queue; one watcher per library."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest

pytest.importorskip("pytestqt")

from conftest import build_tiny_library

from gui_window import WAIT_MS, close_window, shot, shown_window

from searchapp.gui.folder_watch import UPDATE_NAME

TEXTS = {"violin.txt": "The violin maker carved spruce tops and varnished them by hand.",
         "tides.txt": "Tides follow the pull of the moon; the harbour empties twice a day."}


def _window(qtbot, monkeypatch, tmp_path, tiny_bi_encoder_dir, tiny_encoder, *, held=None):
    from searchapp.base.config import load_config
    from searchapp.gui import folder_watch
    from searchapp.library import Library

    monkeypatch.delenv(folder_watch.OFF_ENV, raising=False)  # the suite's windows do not watch; these do
    monkeypatch.setattr(folder_watch, "RETRY_MS", 200)  # a `watch` elsewhere is looked at again sooner
    monkeypatch.setattr(folder_watch, "BUSY_MS", 200)  # and a writer elsewhere
    monkeypatch.setattr(folder_watch, "CATCH_UP_DELAY_MS", 50)  # no first search to let go first here
    data = build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder, 'reranker = ""\n')
    with open(data / "config.toml", "a", encoding="utf-8") as f:
        f.write('[index]\nbackend = "exact"\n')
    lib = Library(load_config(data, env={}), encoder=tiny_encoder)
    if held is not None:
        held(data)
    w = shown_window(qtbot, lib.config, lib)
    w.data, w.docs, w.lib = data, tmp_path / "docs", lib
    return w


@pytest.fixture
def win(qtbot, monkeypatch, tmp_path, tiny_bi_encoder_dir, tiny_encoder):
    w = _window(qtbot, monkeypatch, tmp_path, tiny_bi_encoder_dir, tiny_encoder)
    qtbot.waitUntil(lambda: w.folder_watch.catch_ups == 1, timeout=WAIT_MS)  # its catch-up at start, then
    qtbot.waitUntil(lambda: not w.runner.busy_writing(), timeout=WAIT_MS)  # ended
    yield w
    close_window(w, w.lib)


def stored(lib) -> set[str]:
    return {p.rsplit("/", 1)[-1] for p in lib.store.file_paths().values()}


def test_a_saved_note_is_indexed_by_the_windows_own_update(qtbot, win):
    (win.docs / "lighthouse.txt").write_text("The lighthouse keeper trimmed the lamp at dusk.\n", encoding="utf-8")
    (win.docs / "tides.txt").unlink()
    qtbot.waitUntil(lambda: "lighthouse.txt" in stored(win.lib) and "tides.txt" not in stored(win.lib),
                    timeout=WAIT_MS)
    assert win.folder_watch.updates >= 1  # the window queued it: not a sync on the watcher's thread
    qtbot.waitUntil(lambda: not win.runner.busy_writing(), timeout=WAIT_MS)
    assert win.lib.store.pending_count() == 0  # its meaning too, as a Re-sync would
    # what the update did, as a sync's summary says it, and why it ran
    assert win.statusBar().currentMessage().startswith("Changes in your folders indexed — ")
    win.resize(1280, 800)
    shot(win, "folder-watch-updated.png")


def test_a_renamed_note_is_said_as_one_change(qtbot, win):
    (win.docs / "violin.txt").rename(win.docs / "luthier.txt")
    qtbot.waitUntil(lambda: "luthier.txt" in stored(win.lib) and "violin.txt" not in stored(win.lib),
                    timeout=WAIT_MS)
    qtbot.waitUntil(lambda: not win.runner.busy_writing(), timeout=WAIT_MS)
    said = win.statusBar().currentMessage()
    assert "0 added, 1 renamed or moved, 0 updated, 0 removed" in said, said  # not "1 added, … 1 removed"


def test_updates_one_after_another_add_up_and_one_that_changed_nothing_says_nothing(qtbot, win):
    """300 files copied in, then one edited while they were embedded: the edit's line replaced the copy's 60 ms
    after it was said (a newcomer's find); and an update a terminal's `index` had done first said "0 added"."""
    first, second = win.docs / "apricot.txt", win.docs / "quince.txt"
    first.write_text("Apricots ripen on the south wall by July.\n", encoding="utf-8")
    win.folder_watch.batch.emit([str(first)])
    qtbot.waitUntil(lambda: "apricot.txt" in stored(win.lib) and not win.runner.busy_writing(), timeout=WAIT_MS)
    assert "1 file scanned: 1 added" in win.statusBar().currentMessage()
    second.write_text("Quince jelly sets without added pectin.\n", encoding="utf-8")
    win.folder_watch.batch.emit([str(second)])
    qtbot.waitUntil(lambda: "quince.txt" in stored(win.lib) and not win.runner.busy_writing(), timeout=WAIT_MS)
    summed = win.statusBar().currentMessage()
    assert summed.startswith("Changes in your folders indexed — 2 files scanned: 2 added, 0 updated"), summed
    win.resize(1280, 800)
    shot(win, "folder-watch-summed.png")
    updates = win.folder_watch.updates
    win.folder_watch.batch.emit([str(first)])  # already indexed as it is: this update changes nothing
    qtbot.waitUntil(lambda: win.folder_watch.updates == updates + 1 and not win.runner.busy_writing(),
                    timeout=WAIT_MS)
    qtbot.wait(50)
    assert win.statusBar().currentMessage() == summed
    second.write_text("Quince jelly sets without added pectin; strain it through muslin.\n", encoding="utf-8")
    win.folder_watch.batch.emit([str(second)])  # a file the summed line counted already: the line starts again
    qtbot.waitUntil(lambda: win.statusBar().currentMessage() != summed and not win.runner.busy_writing(),
                    timeout=WAIT_MS)
    assert "— 1 file scanned: 0 added, 1 updated" in win.statusBar().currentMessage()
    win.tools.say("A search's line", 0)  # something else said: the next update's summary starts again
    (win.docs / "medlar.txt").write_text("Medlars are eaten bletted.\n", encoding="utf-8")
    win.folder_watch.batch.emit([str(win.docs / "medlar.txt")])
    qtbot.waitUntil(lambda: "medlar.txt" in stored(win.lib) and not win.runner.busy_writing(), timeout=WAIT_MS)
    assert "— 1 file scanned: 1 added" in win.statusBar().currentMessage()


def test_changes_while_an_update_waits_its_turn_join_it(qtbot, win):
    gate = threading.Event()
    blocker = win.runner.submit(lambda p, c: gate.wait(WAIT_MS / 1000), write=True, name="a long write")
    qtbot.waitUntil(lambda: blocker.running, timeout=WAIT_MS)
    for name in ("a.txt", "b.txt", "c.txt"):
        path = win.docs / name
        path.write_text(f"Note {name} about the orchard and its pears.\n", encoding="utf-8")
        win.folder_watch.batch.emit([str(path)])  # as the watcher's thread hands them over, one batch each
    qtbot.waitUntil(lambda: win.folder_watch.updates >= 1, timeout=WAIT_MS)
    assert win.folder_watch.updates == 1
    assert win.writes.waiting() == [UPDATE_NAME]
    win.resize(1280, 800)
    shot(win, "folder-watch-queued.png")
    gate.set()
    qtbot.waitUntil(lambda: {"a.txt", "b.txt", "c.txt"} <= stored(win.lib), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: not win.runner.busy_writing(), timeout=WAIT_MS)


def test_after_the_persons_cancel_the_windows_own_writes_wait_for_their_next_write(qtbot, win):
    """A newcomer cancelled an Add and a catch-up queued behind it read the folder and embedded 795 passages anyway.
    After a Cancel the updates and catch-ups wait until the person asks for a write again (here a Re-sync)."""
    from searchapp.base.errors import Cancelled
    from searchapp.gui.changes import Changes

    def long_add(progress, cancel):  # the person's write, stopped by their Cancel
        qtbot.waitUntil(lambda: cancel.cancelled, timeout=WAIT_MS)
        raise Cancelled("cancelled")

    job = win.writes.submit("Indexing big", long_add, Changes(files=True))
    qtbot.waitUntil(lambda: job.running, timeout=WAIT_MS)
    kiln = win.docs / "kiln.txt"
    kiln.write_text("The potter fired the kiln overnight.\n", encoding="utf-8")
    win.folder_watch.batch.emit([str(kiln)])  # an update queued behind it
    win.folder_watch._catch_up_now(win.lib)  # and a catch-up
    qtbot.waitUntil(lambda: len(win.writes.waiting()) == 2, timeout=WAIT_MS)
    win.writes.cancel()  # the person's Cancel
    qtbot.waitUntil(lambda: not win.runner.busy_writing(), timeout=WAIT_MS)
    assert "kiln.txt" not in stored(win.lib)  # neither the update nor the catch-up read it
    said = win.statusBar().currentMessage()
    assert said.startswith("Cancelled;") and said.endswith("Changes in your folders wait for it too."), said
    win.resize(1280, 800)
    shot(win, "folder-watch-cancel-holds.png")
    pears = win.docs / "pears.txt"
    pears.write_text("Pears ripen off the tree.\n", encoding="utf-8")
    updates = win.folder_watch.updates
    win.folder_watch.batch.emit([str(pears)])
    qtbot.wait(300)
    assert win.folder_watch.updates == updates and not win.runner.busy_writing()  # still waiting
    win.writes.resync([str(win.docs)])  # the person's next write: the hold ends, what waited goes in behind it
    assert [j.name for j in win.runner.write_jobs()][0] == "Re-syncing"  # first, not behind what waited
    qtbot.waitUntil(lambda: {"kiln.txt", "pears.txt"} <= stored(win.lib), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: not win.runner.busy_writing(), timeout=WAIT_MS)
    assert not win.writes.on_hold and win.folder_watch.catch_ups == 3  # the held one ran once the hold ended


def test_a_watch_in_a_terminal_keeps_the_folders_and_the_window_takes_over_after(
        qtbot, monkeypatch, tmp_path, tiny_bi_encoder_dir, tiny_encoder):
    import contextlib

    from searchapp.library.resources.watch_lock import watching

    other = contextlib.ExitStack()  # a `searchapp watch` elsewhere: its lock, held by another open file
    w = _window(qtbot, monkeypatch, tmp_path, tiny_bi_encoder_dir, tiny_encoder,
                held=lambda data: other.enter_context(watching(data)))
    try:
        qtbot.waitUntil(lambda: w.folder_watch.taken_by is not None, timeout=WAIT_MS)
        assert w.folder_watch.watching is None
        assert "followed by another process" in w.statusBar().currentMessage()
        w.folder_watch.action.trigger()  # turned off meanwhile: the other process still follows them, said so
        assert "process" in w.statusBar().currentMessage() and "still does" in w.statusBar().currentMessage()
        assert w.folder_watch.taken_by is None and not w.folder_watch.retry.isActive()
        w.folder_watch.action.trigger()  # and on again: it defers once more
        qtbot.waitUntil(lambda: w.folder_watch.taken_by is not None, timeout=WAIT_MS)
        # Saved as that watch ends, before the window takes over: nobody's watch sees it (a newcomer's find: it
        # stayed unsearchable until a Re-sync). The window's catch-up at the take-over reads it.
        (w.docs / "gap.txt").write_text("The ferry waited out the squall behind the breakwater.\n", encoding="utf-8")
        said: list[str] = []
        w.statusBar().messageChanged.connect(said.append)
        other.close()  # that watch ended
        qtbot.waitUntil(lambda: w.folder_watch.watching is not None, timeout=WAIT_MS)
        assert any("follows the changes in your folders now" in m for m in said), said
        qtbot.waitUntil(lambda: "gap.txt" in stored(w.lib), timeout=WAIT_MS)
        # Now the window holds the lock: a `searchapp watch` is refused, naming the window.
        proc = subprocess.run([sys.executable, "-m", "searchapp", "--data-dir", str(w.data), "watch"],
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode != 0
        assert "already watched" in proc.stderr and "the window keeps the folders current" in proc.stderr, proc.stderr
        assert "Watch Folders for Changes" in proc.stderr  # how to turn it off, where a person would
    finally:
        other.close()
        close_window(w, w.lib)


def test_turning_the_watch_off_lets_the_lock_go_and_is_remembered(qtbot, win):
    from searchapp.base.errors import SearchAppError
    from searchapp.gui.folder_watch import WATCH_KEY
    from searchapp.library.resources.watch_lock import watching

    with pytest.raises(SearchAppError, match="the window"):
        with watching(win.data):
            pass
    win.folder_watch.action.trigger()  # File → Watch Folders for Changes, unchecked
    assert win.folder_watch.watching is None
    assert "no longer followed" in win.statusBar().currentMessage()  # said, not a silent switch
    with watching(win.data):  # a `searchapp watch` may hold it now
        pass
    assert win._ui.value(WATCH_KEY, True, type=bool) is False
    assert win.lib._watcher is None  # no watcher left to hand changes over


def test_an_update_left_nothing_to_take_embeds_no_backlog(qtbot, win):
    # The update before took every path as it started: a sync of no path would embed every passage still waiting.
    win.folder_watch.stop()  # this file's own update would embed it meanwhile
    (win.docs / "words.txt").write_text("A note indexed by its words alone, its meaning left waiting.\n",
                                        encoding="utf-8")
    win.lib.sync_changed([str(win.docs / "words.txt")], embed=False)
    waiting = win.lib.store.pending_count()
    assert waiting > 0
    assert win.folder_watch._update(win.lib, None, None) is None
    assert win.lib.store.pending_count() == waiting


def test_what_changed_while_the_window_was_closed_is_read_when_it_opens(
        qtbot, monkeypatch, tmp_path, tiny_bi_encoder_dir, tiny_encoder):
    def edit_while_closed(data):
        docs = data.parent / "docs"
        (docs / "kiln.txt").write_text("The potter fired the kiln overnight.\n", encoding="utf-8")
        (docs / "violin.txt").unlink()

    w = _window(qtbot, monkeypatch, tmp_path, tiny_bi_encoder_dir, tiny_encoder, held=edit_while_closed)
    try:
        qtbot.waitUntil(lambda: "kiln.txt" in stored(w.lib) and "violin.txt" not in stored(w.lib), timeout=WAIT_MS)
        assert w.folder_watch.updates == 0  # the catch-up read them, not a change event
        qtbot.waitUntil(lambda: not w.runner.busy_writing(), timeout=WAIT_MS)
        assert w.statusBar().currentMessage().startswith("Found changes in your folders — ")
    finally:
        close_window(w, w.lib)


def test_a_catch_up_that_finds_nothing_says_nothing(qtbot, win):
    qtbot.waitUntil(lambda: not win.runner.busy_writing(), timeout=WAIT_MS)
    assert not win.statusBar().currentMessage().startswith("Found changes")
    assert win.lib.store.pending_count() == 0


def test_a_catch_up_of_an_unchanged_library_with_files_not_indexed_says_nothing(
        qtbot, monkeypatch, tmp_path, tiny_bi_encoder_dir, tiny_encoder):
    """A newcomer's window said "Found changes in your folders — … 0 added, 0 updated, 0 removed, 80 not indexed"
    at every start of an unchanged library: the files left out long ago are counted by every sync, not news."""
    from searchapp.base.config import load_config
    from searchapp.library.reconfigure import library_for

    def left_out_before(data):  # a file with no text and one that cannot be read, met by an earlier sync
        docs = data.parent / "docs"
        (docs / "blank.html").write_text("<html><body> </body></html>", encoding="utf-8")  # no text found
        (docs / "broken.pdf").write_bytes(b"%PDF-1.4 this is not a PDF at all")
        with library_for(load_config(data, env={}), encoder=tiny_encoder) as lib:
            rep = lib.sync(None)
        assert rep.skipped + rep.failed == 2 and len(rep.problems) == 2

    w = _window(qtbot, monkeypatch, tmp_path, tiny_bi_encoder_dir, tiny_encoder, held=left_out_before)
    try:
        said = []
        w.statusBar().messageChanged.connect(said.append)
        qtbot.waitUntil(lambda: w.folder_watch.catch_ups == 1, timeout=WAIT_MS)
        qtbot.waitUntil(lambda: not w.runner.busy_writing(), timeout=WAIT_MS)
        qtbot.wait(50)
        assert not [m for m in said if "Found changes" in m], said
        w.resize(1280, 800)
        shot(w, "catch-up-unchanged.png")
        # One more file left out since: that one is news, and said with the rest
        (w.docs / "torn.pdf").write_bytes(b"%PDF-1.4 torn in half")
        w.folder_watch.rearm()
        w.folder_watch._catch_up_now(w.lib)
        qtbot.waitUntil(lambda: w.folder_watch.catch_ups == 2 and not w.runner.busy_writing(), timeout=WAIT_MS)
        line = w.statusBar().currentMessage()
        assert line.startswith("Found changes in your folders — ") and "3 not indexed" in line, line
    finally:
        close_window(w, w.lib)


def test_no_catch_up_after_a_resumed_sync_died_twice(qtbot, monkeypatch, tmp_path, tiny_bi_encoder_dir,
                                                      tiny_encoder):
    from PySide6.QtCore import QSettings

    from searchapp.gui.quit_guard import RESUME_KEY, RESUMING

    def crashed_twice(data):
        (data.parent / "docs" / "kiln.txt").write_text("The potter fired the kiln overnight.\n", encoding="utf-8")
        ui = QSettings(str(data / "gui.ini"), QSettings.Format.IniFormat)
        ui.setValue(RESUME_KEY, RESUMING)
        ui.sync()

    w = _window(qtbot, monkeypatch, tmp_path, tiny_bi_encoder_dir, tiny_encoder, held=crashed_twice)
    try:
        qtbot.waitUntil(lambda: w.folder_watch.watching is not None, timeout=WAIT_MS)
        assert w.quit_guard.gave_up
        assert not w.runner.write_jobs()  # nothing read by itself: the person chooses Re-sync
        assert "kiln.txt" not in stored(w.lib)
        # Nor at a take-over later in this session (a reviewer's find: the take-over's catch-up ignored the rule)
        from searchapp.library.resources.watch_lock import watching

        w.folder_watch.stop()
        with watching(w.data):  # a `searchapp watch` meanwhile
            w.folder_watch.start()
            assert w.folder_watch.taken_by is not None
        qtbot.waitUntil(lambda: w.folder_watch.watching is not None, timeout=WAIT_MS)
        qtbot.wait(300)  # CATCH_UP_DELAY_MS is 50 here
        assert w.folder_watch.catch_ups == 0 and "kiln.txt" not in stored(w.lib)
    finally:
        close_window(w, w.lib)


def test_the_watch_starts_beside_a_sync_without_holding_the_window_up(qtbot, win):
    # start_watching waits for the library's lock, which a sync holds for its whole length: never on this thread.
    gate = threading.Event()
    threading.Timer(20, gate.set).start()  # were the start on this thread, the test would still end

    def long_sync(prog, cancel):
        with win.lib._lock:
            gate.wait(30)

    win.folder_watch.action.trigger()  # off
    blocker = win.runner.submit(long_sync, write=True, name="a long sync")
    qtbot.waitUntil(lambda: blocker.running, timeout=WAIT_MS)
    win.folder_watch.action.trigger()  # on again: returns at once
    assert not gate.is_set()  # returned while the sync still held the lock
    assert win.folder_watch.watching is None and win.folder_watch.starting is win.lib
    gate.set()
    qtbot.waitUntil(lambda: win.folder_watch.watching is win.lib, timeout=WAIT_MS)


def test_changes_wait_while_another_process_writes_then_go_in(qtbot, win):
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys; from pathlib import Path; from searchapp.library.resources.lock import "
         "writer_lock\nwith writer_lock(Path(sys.argv[1])):\n    print('held', flush=True); sys.stdin.read()",
         str(win.data)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        (win.docs / "kiln.txt").write_text("The potter fired the kiln overnight.\n", encoding="utf-8")
        qtbot.waitUntil(lambda: bool(win.folder_watch._paths), timeout=WAIT_MS)  # handed over, and waiting
        assert win.folder_watch.updates == 0 and not win.runner.busy_writing()  # no write failing on the lock
    finally:
        holder.stdin.close()
        holder.wait(timeout=60)
    qtbot.waitUntil(lambda: "kiln.txt" in stored(win.lib), timeout=WAIT_MS)
    assert win.last_dialog is None  # said nothing went wrong: nothing did


def test_a_catch_up_that_never_ended_is_not_run_again_until_the_persons_re_sync(
        qtbot, monkeypatch, tmp_path, tiny_bi_encoder_dir, tiny_encoder):
    from PySide6.QtCore import QSettings

    from searchapp.gui.folder_watch import CATCH_UP_KEY

    def crashed_in_catch_up(data):
        (data.parent / "docs" / "kiln.txt").write_text("The potter fired the kiln overnight.\n", encoding="utf-8")
        ui = QSettings(str(data / "gui.ini"), QSettings.Format.IniFormat)
        ui.setValue(CATCH_UP_KEY, "running")  # the window died inside its last catch-up
        ui.sync()

    w = _window(qtbot, monkeypatch, tmp_path, tiny_bi_encoder_dir, tiny_encoder, held=crashed_in_catch_up)
    try:
        qtbot.waitUntil(lambda: "stopped unexpectedly" in w.statusBar().currentMessage(), timeout=WAIT_MS)
        assert not w.runner.write_jobs() and "kiln.txt" not in stored(w.lib)
        w.resync(None)  # Re-sync All (F5)
        qtbot.waitUntil(lambda: "kiln.txt" in stored(w.lib), timeout=WAIT_MS)
        assert w._ui.value(CATCH_UP_KEY, "", type=str) == ""  # the catch-up runs by itself again
    finally:
        close_window(w, w.lib)


def test_a_folder_dropped_at_the_first_start_is_not_checked_again_by_a_catch_up(
        qtbot, monkeypatch, tmp_path, tiny_bi_encoder_dir, tiny_encoder):
    """A newcomer's first start: the window opened on an empty library, a folder dropped on it, and once its sync had
    ended "Checking your folders for changes" read every file of it again (the catch-up, due as the watch started,
    found a folder by then). The watch began over no folder: there is nothing of before to catch up."""
    from gui_window import drop

    from searchapp.base.config import load_config
    from searchapp.library import Library

    monkeypatch.delenv("SEARCHAPP_NO_WINDOW_WATCH", raising=False)
    data, docs = tmp_path / "lib", tmp_path / "docs"
    data.mkdir()
    docs.mkdir()
    (data / "config.toml").write_text(f'[models]\nbi_encoder = "{tiny_bi_encoder_dir}"\nreranker = ""\n'
                                      '[index]\nbackend = "exact"\n', encoding="utf-8")
    for name, text in TEXTS.items():
        (docs / name).write_text(text + "\n", encoding="utf-8")
    lib = Library(load_config(data, env={}), encoder=tiny_encoder)
    w = shown_window(qtbot, lib.config, lib)
    try:
        qtbot.waitUntil(lambda: w.folder_watch.watching is lib, timeout=WAIT_MS)
        with qtbot.waitSignal(w.writesIdle, timeout=WAIT_MS):
            drop(w, [docs])
        assert stored(lib) == set(TEXTS) and w.folder_watch.has_folders()
        w.folder_watch._catch_up_now(lib)  # as its timer does, once the drop's sync has ended
        assert w.folder_watch.catch_ups == 0 and not w.runner.write_jobs()
    finally:
        close_window(w, lib)
