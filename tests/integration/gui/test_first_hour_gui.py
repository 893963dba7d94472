"""Issue 39 (the window): nothing dropped during a sync is lost, nothing moves under the mouse, and the first
minutes show what is there. Offscreen, real widgets, a real tiny library; a sync (or a model load) is held at a
point the test chooses (an event it sets), never timed. Screenshots go to gui_window.SHOTS."""

from __future__ import annotations

import dataclasses
import threading
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from conftest import build_tiny_library

from gui_window import WAIT_MS, drop, search, shot, shown_window, window_maker
from painted_text import painted_text

TEXTS = {"volcano.txt": "The volcano erupted and molten rock flowed down to the sea.",
         "bread.md": "A recipe for sourdough bread with a long cold proof."}


class HeldSync:
    """Holds the window's write job inside its sync once it reports `stage` with at least `done` files, until
    `release()`: the strip, the library pane and the queue can be looked at mid-sync with no timing."""

    def __init__(self, monkeypatch, stage: str = "extracting", done: int = 1) -> None:
        from searchapp.gui.workers import Job

        self.gate, self.reached = threading.Event(), threading.Event()
        self.order: list[str] = []  # the writes' names, in the order they began reporting
        real = Job.report

        def report(job, p) -> None:
            real(job, p)
            if job.write and (not self.order or self.order[-1] != job.name):
                self.order.append(job.name)
            if job.write and not self.gate.is_set() and p.stage == stage and p.done >= done:
                self.reached.set()
                self.gate.wait(WAIT_MS / 1000)

        monkeypatch.setattr(Job, "report", report)

    def release(self) -> None:
        self.gate.set()


def many_notes(folder: Path, n: int) -> Path:
    folder.mkdir()
    for i in range(n):
        (folder / f"note{i:03d}.txt").write_text(
            f"Note {i}. " + " ".join(f"The committee discussed item {i}-{j} about budgets and rivers." for j in range(4)),
            encoding="utf-8")
    return folder


def button_tops(win) -> dict[str, int]:
    """Where the library pane's buttons are, in the window's coordinates."""
    panel = win.library_panel
    return {b.text(): b.mapTo(win, b.rect().topLeft()).y()
            for b in (panel.add_button, panel.remove_button, panel.resync_button, panel.problems_button)}


@pytest.fixture
def open_window(qtbot, tmp_path, tiny_bi_encoder_dir, tiny_encoder):
    data = build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder)
    yield from window_maker(qtbot, data, tiny_encoder)


def test_a_folder_dropped_during_a_sync_is_queued_shown_and_indexed_after_it(qtbot, open_window, tmp_path,
                                                                            monkeypatch):
    win = open_window()
    held = HeldSync(monkeypatch, done=1)
    first = many_notes(tmp_path / "first", 20)
    second = many_notes(tmp_path / "second", 3)
    tops = button_tops(win)
    win.add_paths([str(first)])
    assert held.reached.wait(WAIT_MS / 1000)
    qtbot.waitUntil(lambda: "Step 2 of 3 or 4 · Reading " in win.progress.label.full_text(), timeout=WAIT_MS)
    assert button_tops(win) == tops  # the strip came without moving the buttons
    drop(win, [second])  # mid-sync: queued, and said
    queued = win.progress.queued
    assert queued.isVisible() and queued.full_text() == f"Next: {second}", queued.full_text()
    assert win.statusBar().currentMessage() == f"Queued: {second} — runs after indexing first"
    win.resync(None)  # F5 meanwhile: after the drop
    assert queued.full_text() == f"Next: {second}, then 1 more"
    assert "Re-sync of every folder" in queued.toolTip()
    win.add_paths([str(second)])  # the same folder again: queued once
    assert win.statusBar().currentMessage() == f"Already queued: {second}"
    win.statusBar().showMessage(f"Queued: {second} — runs after indexing first")
    tree = win.library_panel.tree
    qtbot.waitUntil(lambda: tree.topLevelItemCount() == 3, timeout=WAIT_MS)  # the folder syncing is listed
    assert tree.topLevelItem(1).data(0, Qt.ItemDataRole.UserRole) == str(first)
    assert tree.topLevelItem(1).text(3) == "syncing…"
    assert tree.topLevelItem(2).data(0, Qt.ItemDataRole.UserRole) == str(second)  # and the one dropped, waiting
    assert tree.topLevelItem(2).text(3) == "waiting…"
    shot(win, "mid_sync_queued_drop.png")

    with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
        held.release()
    assert held.order == ["Indexing first", "Indexing second", "Re-syncing"]  # in the order asked
    roots = {r.path: r.files for r in win.status.roots}
    assert roots[str(first)] == 20 and roots[str(second)] == 3
    assert not win.progress.isVisible() and not queued.isVisible()
    assert button_tops(win) == tops  # and went without moving them


def test_a_folder_dropped_on_an_empty_library_is_listed_at_once_and_the_results_say_what_happens(
        qtbot, tmp_path, tiny_encoder, monkeypatch):
    """The newcomer's first drop: for 11 s, until its first files were committed, the pane listed no folder and the
    results area was blank (the welcome gone). Held before any file is committed, the window says what it does."""
    from PySide6.QtWidgets import QLabel

    from searchapp.base.config import load_config
    from searchapp.gui.empty_results import WELCOME
    from searchapp.library import Library
    from searchapp.library.report.status import RootStatus

    config = load_config(tmp_path / "new", env={}, overrides={"index": {"backend": "exact"}, "models": {"reranker": ""}})
    with Library(config, encoder=tiny_encoder) as lib:
        win = shown_window(qtbot, config, lib)
        win.resize(1280, 800)
        hint = win.findChild(QLabel, "emptyResults")
        assert hint.text() == WELCOME
        held = HeldSync(monkeypatch, done=1)
        home = many_notes(tmp_path / "home", 20)  # one batch: committed only at the end of its words
        extra = many_notes(tmp_path / "extra", 2)
        try:  # a failure here must not leave the sync held for the teardown to wait on
            drop(win, [home])
            tree = win.library_panel.tree

            def rows():
                return [(tree.topLevelItem(i).data(0, Qt.ItemDataRole.UserRole), tree.topLevelItem(i).text(3))
                        for i in range(tree.topLevelItemCount())]

            assert [path for path, _ in rows()] == [str(home)]  # at once, before any file is read
            assert held.reached.wait(WAIT_MS / 1000)
            drop(win, [extra])  # queued behind it
            # by name, A to Z, as the pane lists its folders before, during and after a sync
            listed = [(str(extra), "waiting…"), (str(home), "syncing…")]
            qtbot.waitUntil(lambda: rows() == listed, timeout=WAIT_MS)
            assert not win.library_panel.hint.isVisible()  # "Drop folders here" no more: one was
            # The status of the library as it was read (no folder: none is committed yet, and a status read waits for
            # the first commit) shown again, as a count refresh does: both stay listed, and the results say why.
            win._apply_status(win.status)
            assert not win.status.roots and rows() == listed
            assert hint.isVisible() and hint.text().startswith("Indexing home (then extra): finding its"), hint.text()
            # Its folder committed, none of its files yet (3 s into the newcomer's home): still nothing to search.
            win._apply_status(dataclasses.replace(win.status, roots=[RootStatus(str(home), 0, 0, None)]))
            assert rows() == listed
            assert hint.isVisible() and hint.text().startswith("Indexing home (then extra)"), hint.text()
            shot(win, "dropped_on_empty_library.png")
        finally:
            held.release()
        qtbot.waitUntil(lambda: not win.runner.busy_writing(), timeout=WAIT_MS)
        qtbot.waitUntil(lambda: [path for path, _ in rows()] == [str(extra), str(home)], timeout=WAIT_MS)
        # Files are in, no search typed: how many are searchable and where to type (it was blank), then a search's
        # results take its place, and Escape brings it back
        qtbot.waitUntil(lambda: win.status.files.get("indexed") == 22, timeout=WAIT_MS)
        ready = "22 files are searchable: type what you are looking for above (Ctrl+L)"
        assert hint.isVisible() and hint.text() == ready, hint.text()
        assert hint.textFormat() == Qt.TextFormat.PlainText
        shot(win, "ready_after_first_sync.png")
        assert search(qtbot, win, "committee", "lexical").hits
        assert not hint.isVisible()  # the results area is the results' again
        win.search.clear()
        assert hint.isVisible() and hint.text() == ready
        win.close()


def test_a_search_in_an_empty_library_says_nothing_is_indexed_yet_and_how_to_add_a_folder(qtbot, tmp_path,
                                                                                          tiny_encoder):
    """A newcomer's first search, before adding anything, said "No results for “banana bread”. Try other words, or
    add the folder that holds what you are looking for": as if a library had been searched."""
    from PySide6.QtWidgets import QLabel

    from searchapp.base.config import load_config
    from searchapp.gui.empty_results import WELCOME
    from searchapp.library import Library

    config = load_config(tmp_path / "new", env={}, overrides={"index": {"backend": "exact"}, "models": {"reranker": ""}})
    with Library(config, encoder=tiny_encoder) as lib:
        win = shown_window(qtbot, config, lib)
        win.resize(1280, 800)
        hint = win.findChild(QLabel, "emptyResults")
        try:
            for mode in ("hybrid", "lexical", "dense"):
                search(qtbot, win, "banana bread", mode)
                assert hint.isVisible()
                assert hint.text() == f"No results for “banana bread”. {WELCOME}", hint.text()
                assert "Try other words" not in hint.text()
            shot(win, "empty-library-search.png")
            win.search.clear()  # Escape: no search shown, the welcome again
            assert hint.isVisible() and hint.text() == WELCOME
        finally:
            win.close()


def test_cancel_stops_the_running_sync_and_the_folder_queued_behind_it_still_runs(qtbot, open_window, tmp_path,
                                                                                 monkeypatch):
    """Cancel used to cancel every queued write: a folder dropped mid-sync was never added, and the strip said
    "the rest on the next sync", which never looks at a folder that is not in the library."""
    from PySide6.QtWidgets import QPushButton

    win = open_window()
    held = HeldSync(monkeypatch, done=1)
    first = many_notes(tmp_path / "first", 20)
    second = many_notes(tmp_path / "second", 3)
    win.add_paths([str(first)])
    assert held.reached.wait(WAIT_MS / 1000)
    drop(win, [second])
    assert win.progress.queued.full_text() == f"Next: {second}"
    assert "what is queued after it still runs" in win.progress.cancel_button.toolTip()
    qtbot.mouseClick(win.findChild(QPushButton, "cancelButton"), Qt.MouseButton.LeftButton)
    with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
        held.release()
    assert held.order == ["Indexing first", "Indexing second"]
    roots = {r.path: r.files for r in win.status.roots}
    assert roots[str(second)] == 3 and roots.get(str(first), 0) < 20, roots
    tree = win.library_panel.tree
    rows = {tree.topLevelItem(i).data(0, Qt.ItemDataRole.UserRole): tree.topLevelItem(i).text(3)
            for i in range(tree.topLevelItemCount())}
    assert rows[str(second)] == "just now"
    assert rows[str(first)] == ("not finished" if roots.get(str(first)) else "never")  # not "never" beside files
    said = win.progress.label.full_text()
    assert said.startswith("Cancelled; ") and " files done" in said, said  # the first's own summary, kept
    shot(win, "cancel_then_queued_folder.png")


def test_a_sync_cut_short_by_a_crash_resumes_at_the_next_start(qtbot, open_window, tmp_path, monkeypatch):
    """After a kill -9 mid-sync the window came back idle, the folder part-read and nothing said so. gui.ini says
    "interrupted" while a sync runs (on disk at once) and forgets it when the writes end; a start that finds it
    (the window never got to end them) re-syncs, saying why."""
    from PySide6.QtCore import QSettings

    from searchapp.gui.quit_guard import INTERRUPTED, RESUME_KEY, RESUMING

    win = open_window()
    ini = str(win.config.data_dir / "gui.ini")
    held = HeldSync(monkeypatch, done=1)
    first = many_notes(tmp_path / "first", 20)
    win.add_paths([str(first)])
    assert held.reached.wait(WAIT_MS / 1000)
    qtbot.waitUntil(lambda: QSettings(ini, QSettings.Format.IniFormat).value(RESUME_KEY) == INTERRUPTED,
                    timeout=WAIT_MS)  # on disk while the sync runs: what a kill leaves
    with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
        held.release()
    assert not QSettings(ini, QSettings.Format.IniFormat).contains(RESUME_KEY)  # ended: nothing to resume

    crashed = QSettings(ini, QSettings.Format.IniFormat)
    crashed.setValue(RESUME_KEY, INTERRUPTED)  # as a window killed mid-sync leaves it
    crashed.sync()
    import dataclasses

    from searchapp.gui.quit_guard import QuitGuard

    said, real_resume = [], QuitGuard.resume_if_asked

    def resume_if_asked(guard):  # what it says, heard: it runs as the window starts, before a test could listen
        tools = guard.tools
        guard.tools = dataclasses.replace(tools, say=lambda text, ms=0: (said.append(text), tools.say(text, ms)))
        try:
            return real_resume(guard)
        finally:
            guard.tools = tools

    monkeypatch.setattr(QuitGuard, "resume_if_asked", resume_if_asked)
    again = open_window()
    qtbot.waitUntil(lambda: not again.runner.busy_writing() and not QSettings(
        ini, QSettings.Format.IniFormat).contains(RESUME_KEY), timeout=WAIT_MS)
    assert any(m.startswith("Resuming the indexing that stopped when searchapp last closed unexpectedly")
               for m in said), said
    again.statusBar().showMessage(said[0])  # as it stood while the resumed sync ran
    shot(again, "resumed_after_crash.png")

    # The resumed sync died too (a file that crashes a reader): the next start resumes nothing, and says so.
    crashed.setValue(RESUME_KEY, RESUMING)
    crashed.sync()
    said.clear()
    third = open_window()
    assert not third.runner.busy_writing() and not QSettings(ini, QSettings.Format.IniFormat).contains(RESUME_KEY)
    assert said == ["The indexing stopped unexpectedly twice in a row, so it was not resumed; Re-sync (F5) tries "
                    "again."], said
    assert next(r.files for r in again.status.roots if r.path == str(first)) == 20


def test_the_library_pane_lists_a_new_folder_with_its_counts_while_it_syncs(qtbot, open_window, tmp_path,
                                                                           monkeypatch):
    win = open_window()
    held = HeldSync(monkeypatch, done=150)  # two batches of 64 files committed, the sync still under way
    many = many_notes(tmp_path / "many", 200)
    win.add_paths([str(many)])
    assert held.reached.wait(WAIT_MS / 1000)
    committed = next(r for r in win.library.status().roots if r.path == str(many))  # stable while held
    assert 0 < committed.files < 200
    tree = win.library_panel.tree

    def row():
        return next(([tree.topLevelItem(i).text(c) for c in (1, 2, 3)] for i in range(tree.topLevelItemCount())
                     if tree.topLevelItem(i).data(0, Qt.ItemDataRole.UserRole) == str(many)), None)

    # "so far": the files searchable so far, not the strip's files read nor the status bar's whole library (a
    # newcomer read "Reading 497 of 3,000 files", "320" and "337" as three counts of one thing)
    try:  # a failed check lets the held sync go at once (else it waits out WAIT_MS)
        qtbot.waitUntil(lambda: (row() or [])[1:] == [str(committed.chunks), "syncing…"], timeout=WAIT_MS)
        assert row()[0] == f"{committed.files} so far"
        assert win.runner.busy_writing()  # during the sync, not after it
        qtbot.waitUntil(lambda: "Step 2 of 3 or 4 · Reading " in win.progress.label.full_text(), timeout=WAIT_MS)
        assert win.labels.index.text().startswith("Library: "), win.labels.index.text()
        item = next(tree.topLevelItem(i) for i in range(tree.topLevelItemCount())
                    if tree.topLevelItem(i).data(0, Qt.ItemDataRole.UserRole) == str(many))
        assert "Searchable so far" in item.toolTip(1) and "Searchable so far" in item.toolTip(2)
    except BaseException:
        held.release()
        raise
    shot(win, "library_pane_during_sync.png")
    with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
        held.release()
    assert row() == ["200", str(win.status.chunks - 2), "just now"]
    done = next(tree.topLevelItem(i) for i in range(tree.topLevelItemCount())
                if tree.topLevelItem(i).data(0, Qt.ItemDataRole.UserRole) == str(many))
    assert "so far" not in done.toolTip(1)  # done: the folder's counts, nothing still to come


def test_the_library_buttons_do_not_move_when_the_progress_strip_comes_and_goes(qtbot, open_window):
    win = open_window()
    tops = button_tops(win)
    strip = win.progress
    strip.start("Indexing notes")
    qtbot.waitUntil(strip.isVisible)
    QApplication.processEvents()
    assert button_tops(win) == tops
    strip.show_outcome("Cancelled; 12 files done, Re-sync (F5) goes on where it stopped.")
    QApplication.processEvents()
    assert button_tops(win) == tops
    strip.hide()
    QApplication.processEvents()
    assert button_tops(win) == tops


def test_the_library_buttons_do_not_move_when_the_saved_searches_are_read(qtbot, open_window):
    """The saved searches are read in the background after the window opens; the hint under them went from one line
    ("Reading saved searches…") to two, and the library's buttons jumped 14 px up (a busy run of the strip test above
    measured them before it and failed)."""
    from searchapp.gui.saved_panel import READING_HINT

    win = open_window()
    panel = win.saved_panel
    qtbot.waitUntil(lambda: panel.hint.text() != READING_HINT, timeout=WAIT_MS)  # the window's own read, done
    panel.hint.setText(READING_HINT)  # as the window opens
    panel.hint.setVisible(True)

    def laid_out() -> bool:  # the hint as tall as the layout makes it for its text: the new text is taken in
        QApplication.processEvents()
        hint = panel.hint
        return hint.height() == max(hint.minimumHeight(), hint.heightForWidth(hint.width()))

    qtbot.waitUntil(laid_out, timeout=WAIT_MS)
    tops = button_tops(win)
    panel.set_items([])  # what the background read ends with when there are none
    qtbot.waitUntil(laid_out, timeout=WAIT_MS)
    assert button_tops(win) == tops


def test_a_long_status_message_is_not_cut_by_the_labels_beside_it(qtbot, open_window):
    from PySide6.QtWidgets import QSizeGrip, QWidget

    from searchapp.gui.status_labels import MESSAGE_LEFT
    from searchapp.gui.write_jobs import cancel_summary
    from searchapp.library.sync.contract import SyncReport

    win = open_window()
    qtbot.waitUntil(lambda: win.models_ready, timeout=WAIT_MS)
    bar, labels = win.statusBar(), win.labels
    everything = [labels.device, labels.models, labels.index, labels.reranker]
    # Each label gets its text as its part of the start-up ends (the index opens on a worker): on a busy machine
    # after the models are ready, so waited for, not asserted at once (a busy run failed here).
    qtbot.waitUntil(lambda: all(lab.isVisible() and lab.text() for lab in everything), timeout=WAIT_MS)
    message = cancel_summary(SyncReport(added=1473, chunks_pending=5120))
    bar.showMessage(message)
    QApplication.processEvents()

    def first_label_x() -> int:
        return min(w.x() for w in bar.findChildren(QWidget, options=Qt.FindChildOption.FindDirectChildrenOnly)
                   if w.isVisible() and not isinstance(w, QSizeGrip))

    qtbot.waitUntil(lambda: MESSAGE_LEFT + bar.fontMetrics().horizontalAdvance(message) <= first_label_x(),
                    timeout=WAIT_MS)
    assert labels.index.isVisible()  # what gives way is what a person needs least
    bar.clearMessage()
    qtbot.waitUntil(lambda: all(lab.isVisible() for lab in everything), timeout=WAIT_MS)


def test_a_syncs_summary_groups_its_thousands_as_the_rest_of_the_window():
    """"3,000 files scanned: 3,000 added … 3725 passages embedded" (a newcomer, n7): one line, two ways to write a
    number. No window needed: the line is what the status bar shows."""
    from searchapp.gui.write_jobs import WriteJobs
    from searchapp.library.sync.contract import SyncReport

    said = WriteJobs.summary(SyncReport(scanned=3000, added=2997, skipped=1204, quiet=1, failed=1,
                                        chunks_embedded=3725, chunks_pending=1500))
    assert said == ("3,000 files scanned: 2,997 added, 0 updated, 0 removed, 1,204 not indexed; "
                    "3,725 passages embedded, 1,500 still to embed (searchable by words)"), said


def test_ctrl_comma_opens_the_settings_from_the_window_and_from_its_other_windows(qtbot, open_window):
    from searchapp.gui.settings_dialog import SettingsDialog

    win = open_window()
    win.activateWindow()
    qtbot.keyClick(win.search.search_box, Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)
    assert isinstance(win.last_dialog, SettingsDialog) and win.last_dialog.isVisible()
    win.last_dialog.close()
    win.last_dialog = None
    dupes = win.discover.open_duplicates(0.9)  # a window of its own
    qtbot.waitExposed(dupes)
    dupes.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is dupes, timeout=WAIT_MS)
    qtbot.keyClick(dupes.tree, Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)
    assert isinstance(win.last_dialog, SettingsDialog) and win.last_dialog.isVisible()


def test_add_folder_opens_in_the_home_folder_and_adds_the_folder_chosen(qtbot, open_window, tmp_path, monkeypatch):
    from PySide6.QtCore import QDir

    home = tmp_path / "home"
    notes = many_notes(home / "notes", 2) if home.mkdir() is None else None
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path)  # the folder the app was started in: not where a person's files are
    win = open_window()
    add = next(a for a in win.menuBar().actions()[0].menu().actions() if a.text() == "&Add Folder…")
    add.trigger()
    dlg = win.library_panel.folder_dialog
    assert dlg is not None and dlg.isVisible()
    assert QDir(dlg.directory()).absolutePath() == str(home)
    dlg.selectFile(str(notes))
    with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
        dlg.accept()
    assert str(notes) in [r.path for r in win.status.roots]


def test_copies_are_named_after_their_original_and_each_shows_its_name_whole(qtbot, open_window, tmp_path):
    from searchapp.gui.copy_names import copy_mark_removed

    for name, bare in (("pep-0008 (1).rst", "pep-0008.rst"), ("report - Copy.pdf", "report.pdf"),
                       ("report - Copy (2).pdf", "report.pdf"), ("notes copy 2.txt", "notes.txt"),
                       ("plan (another copy).odt", "plan.odt"), ("Copy of budget.xlsx", "budget.xlsx"),
                       ("pep-0008.rst", "pep-0008.rst"), ("(1).txt", "(1).txt"), (".bashrc", ".bashrc")):
        assert copy_mark_removed(name) == bare, name

    win = open_window()
    deep = tmp_path / "docs" / "Projects" / "2026" / "python style guides and their many drafts" / "archive"
    deep.mkdir(parents=True)
    text = "Style Guide for Python Code: indentation, tabs or spaces, maximum line length.\n"
    for name in ("pep-0008 (1).rst", "pep-0008.rst", "pep-0008 - Copy.rst"):
        (deep / name).write_text(text, encoding="utf-8")
    with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
        win.resync(None)
    dupes = win.discover.open_duplicates(0.9)
    dupes.resize(1280, 800)
    qtbot.waitUntil(lambda: dupes.report is not None and dupes.refresh_button.isEnabled(), timeout=WAIT_MS)
    tree = dupes.tree
    group = tree.topLevelItem(0).child(0)
    assert group.text(0) == "3 × pep-0008.rst"
    children = [group.child(i).text(0) for i in range(group.childCount())]
    assert children[0] == str(deep / "pep-0008.rst")  # the original first
    shown = [painted_text(tree, tree.indexFromItem(group.child(i), 0))[0] for i in range(3)]
    assert shown == ["pep-0008.rst", "pep-0008 (1).rst", "pep-0008 - Copy.rst"], shown  # each whole, so they differ
    assert dupes.summary.text().startswith("1 group of exact copies")
    tree.setCurrentItem(group)
    shot(dupes, "duplicates_window.png")


def test_copies_of_one_name_in_three_folders_show_their_name_then_the_folder_that_tells_them_apart(
        qtbot, open_window, tmp_path):
    """The newcomer's three copies of bug1868759.pdf all read "/tmp/s17/win/ho…/bug1868759.p": cut in the middle,
    the folder that tells them apart was the part cut away."""
    from searchapp.gui.duplicates_window import told_apart

    assert told_apart(["/w/home/Desktop/b.pdf", "/w/home/Papers/b.pdf", "/w/home/b.pdf"]) == [
        "home/Desktop", "home/Papers", "home"]  # from the folder they share, its name kept
    win = open_window()
    docs = tmp_path / "docs"
    text = "Firefox bug 1868759: the PDF viewer drew the annotation layer twice on a rotated page.\n"
    folders = [docs / "Documents" / "Work" / "Reports" / "2023", docs / "Documents" / "Backup old",
               docs / "Desktop" / "to sort later"]
    for folder in folders:
        folder.mkdir(parents=True)
        (folder / "bug1868759.txt").write_text(text, encoding="utf-8")
    with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
        win.resync(None)
    dupes = win.discover.open_duplicates(0.9)
    dupes.resize(900, 600)  # the newcomer's
    qtbot.waitUntil(lambda: dupes.report is not None and dupes.refresh_button.isEnabled(), timeout=WAIT_MS)
    tree = dupes.tree
    group = tree.topLevelItem(0).child(0)
    assert group.text(0) == "3 × bug1868759.txt"
    painted = [painted_text(tree, tree.indexFromItem(group.child(i), 0)) for i in range(3)]
    assert [p[0] for p in painted] == ["bug1868759.txt"] * 3, painted  # the name whole, first
    wheres = [p[1] if len(p) > 1 else "" for p in painted]  # then, greyed, the folder that tells them apart
    lasts = {last for last in ("2023", "Backup old", "to sort later") for w in wheres if w.endswith("/" + last)}
    assert len(lasts) == 3, wheres
    assert {group.child(i).toolTip(0).count("bug1868759.txt") for i in range(3)} == {1}  # the whole path on hover
    tree.setCurrentItem(group.child(1))
    shot(dupes, "duplicates_told_apart.png")


def test_the_query_restored_at_start_answers_by_words_while_the_model_loads(qtbot, tmp_path, tiny_bi_encoder_dir,
                                                                          tiny_encoder, monkeypatch):
    from PySide6.QtCore import QSettings

    from searchapp.base.config import load_config
    from searchapp.gui import build_main_window
    from searchapp.gui.quit_guard import RESUME_KEY
    from searchapp.library.resources.model_set import ModelSet
    from searchapp.library.search.result import LOADING

    data = build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder)
    ui = QSettings(str(data / "gui.ini"), QSettings.Format.IniFormat)
    ui.setValue("last_query", "volcano")
    ui.setValue(RESUME_KEY, True)  # a Quit stopped indexing: this start resumes it
    ui.sync()
    gate, real = threading.Event(), ModelSet.load_for_search

    def held_load(*args, **kwargs):  # the models load from disk (seconds on a busy start): held here instead
        gate.wait(WAIT_MS / 1000)
        return real(*args, **kwargs)

    monkeypatch.setattr(ModelSet, "load_for_search", held_load)
    config = load_config(data, env={}, overrides={"models": {"reranker": ""}})
    win = build_main_window(config)  # opens its own library: nothing loaded yet
    qtbot.addWidget(win)
    try:
        win.show()
        model = win.search.results_model
        qtbot.waitUntil(lambda: model.rowCount() > 0, timeout=WAIT_MS)
        assert not gate.is_set() and win.library.models.loaded_encoder is None
        assert win.search.search_box.text() == "volcano" and model.hits[0].path.endswith("volcano.txt")
        assert win.search.by_words and "word matches only" in win.search.result.said(LOADING)
        with qtbot.waitSignal(win.searchFinished, timeout=WAIT_MS,
                              check_params_cb=lambda res: res.mode == "hybrid") as sig:
            gate.set()
        assert sig.args[0].hits and not win.search.by_words
        qtbot.waitUntil(lambda: not win.runner.busy_writing(), timeout=WAIT_MS)
    finally:
        gate.set()
        win.close()


def test_a_start_while_another_process_syncs_does_not_take_its_sync_for_a_crash(qtbot, open_window, tmp_path):
    """A second window opened during the first one's sync found "interrupted" and re-synced everything."""
    import subprocess
    import sys

    from PySide6.QtCore import QSettings

    from searchapp.gui.quit_guard import INTERRUPTED, RESUME_KEY

    first = open_window()
    data = first.config.data_dir
    ini = str(data / "gui.ini")
    ui = QSettings(ini, QSettings.Format.IniFormat)
    ui.setValue(RESUME_KEY, INTERRUPTED)  # as the other window's running sync wrote it
    ui.sync()
    hold = ("import sys\nfrom pathlib import Path\nfrom searchapp.library.resources.lock import writer_lock\n"
            "with writer_lock(Path(sys.argv[1])):\n    print('locked', flush=True)\n    sys.stdin.read()\n")
    other = subprocess.Popen([sys.executable, "-c", hold, str(data)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True)  # that sync's process, holding the library's writer lock
    try:
        assert other.stdout.readline().strip() == "locked"
        second = open_window()
        assert not second.runner.busy_writing()
        assert QSettings(ini, QSettings.Format.IniFormat).value(RESUME_KEY) == INTERRUPTED  # the other's, kept
    finally:
        other.stdin.close()
        other.wait(timeout=60)


def test_a_folder_queued_when_searchapp_quits_is_added_when_it_resumes(qtbot, open_window, tmp_path, monkeypatch):
    """A folder dropped during a sync and still waiting when the person chose "Quit and resume next time" (or the
    window crashed) was lost: the resume re-synced the library's folders, and it was not one yet."""
    import json
    import time as clock

    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QPushButton

    from searchapp.gui.quit_guard import ADDS_KEY, QUIT, RESUME_KEY
    from searchapp.gui.workers import Job

    held, real = threading.Event(), Job.report

    def report(job, p) -> None:  # the first sync waits here until the quit cancels it
        real(job, p)
        if job.write and job.name == "Indexing first":
            held.set()
            while not job.cancel_token.cancelled:
                clock.sleep(0.01)

    monkeypatch.setattr(Job, "report", report)
    win = open_window()
    ini = str(win.config.data_dir / "gui.ini")
    first = many_notes(tmp_path / "first", 20)
    second = many_notes(tmp_path / "second", 3)
    win.add_paths([str(first)])
    assert held.wait(WAIT_MS / 1000)
    drop(win, [second])
    waiting = json.dumps([str(second)])
    qtbot.waitUntil(lambda: QSettings(ini, QSettings.Format.IniFormat).value(ADDS_KEY) == waiting,
                    timeout=WAIT_MS)  # on disk while it waits: a crash keeps it too
    win.request_quit()
    qtbot.mouseClick(win.quit_guard.prompt.findChild(QPushButton, "quitConfirm"), Qt.MouseButton.LeftButton)
    ui = QSettings(ini, QSettings.Format.IniFormat)
    assert ui.value(RESUME_KEY) == QUIT and ui.value(ADDS_KEY) == waiting
    monkeypatch.setattr(Job, "report", real)
    win.library.close()

    again = open_window()
    qtbot.waitUntil(lambda: not again.runner.busy_writing() and {r.path for r in again.status.roots} >= {
        str(first), str(second)}, timeout=WAIT_MS)
    roots = {r.path: r.files for r in again.status.roots}
    assert roots[str(first)] == 20 and roots[str(second)] == 3
    assert not QSettings(ini, QSettings.Format.IniFormat).contains(ADDS_KEY)


def test_a_sync_ending_under_a_query_keeps_its_summary_and_the_window_says_meaning_in_its_own_words(
        qtbot, open_window, tmp_path):
    """A first-time user never saw a sync's summary (or "… is back"): the query shown ran again and its "10 results
    in 222 ms" took the status line within 0.2 s. And the meaning note named a terminal command, backticks too."""
    from searchapp.gui.search_controller import _meaning_words
    from searchapp.library.search.result import MEANING, Notice, SearchResult

    win = open_window()
    win.search.search_box.setText("budgets and rivers")
    with qtbot.waitSignal(win.searchFinished, timeout=WAIT_MS):
        win.run_search()
    more = many_notes(tmp_path / "more", 5)
    with qtbot.waitSignal(win.searchFinished, timeout=WAIT_MS) as again:  # the rows follow the sync
        win.add_paths([str(more)])
    assert again.args[0].hits and win.statusBar().currentMessage().startswith("5 files scanned: 5 added"), \
        win.statusBar().currentMessage()

    from searchapp.base.types import Hit, StageScores

    unembedded = Hit(1, "/f.txt", None, 0, 4, "text", StageScores(lexical=2.0, words=0.8), order_label="words")
    result = SearchResult("q", "hybrid", [unembedded], False, notices=[Notice(MEANING, "meaning: 17% of passages; …")])
    result.meaning_percent = 17
    said = _meaning_words(result, result.hits)  # a row without meaning shown: its grey score is pointed at
    assert said == ("meaning covers 17% of passages so far; the rest are found by their words until indexing "
                    'finishes (their score, in grey, reads "words")') and "`" not in said and "searchapp index" not in said


def test_the_not_indexed_button_counts_entries_as_the_sync_does(qtbot, open_window, tmp_path):
    import zipfile

    win = open_window()
    folder = tmp_path / "zipped"
    folder.mkdir()
    with zipfile.ZipFile(folder / "a.zip", "w") as z:
        for i in range(3):
            z.writestr(f"broken{i}.pdf", b"%PDF-1.4 not really a pdf")  # one row: "3 of its members: …"
    with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
        win.add_paths([str(folder)])
    qtbot.waitUntil(lambda: win.library_panel.problems_button.text() == "Not indexed: 0 + 3", timeout=WAIT_MS)  # no file, 3 items


def test_a_first_start_says_how_to_begin_and_keeps_the_jargon_for_later(qtbot, tmp_path, tiny_encoder, monkeypatch):
    """A newcomer's first look (n7): on an empty library a yellow "No reranker: no cross-encoder weights were found,
    so results keep their first-stage order", "Device: CPU (2 threads, bf16) · queries: numpy fp32", "Model: … (mean)"
    and a greyed "Not indexed: 0" came before how to add a folder. Empty: the welcome alone, the details on hover.
    Once there is something to search, the notice says what a reranker gives; Not indexed shows once one is not."""
    from searchapp.base.config import load_config
    from searchapp.gui.reranker_notice import SHARPER
    from searchapp.library import Library

    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))  # the default reranker: not in this (empty) cache
    config = load_config(tmp_path / "new", env={}, overrides={"index": {"backend": "exact"}})
    with Library(config, encoder=tiny_encoder) as lib:
        win = shown_window(qtbot, config, lib)
        win.resize(1280, 800)
        labels, panel, notice = win.labels, win.library_panel, win.notice
        qtbot.waitUntil(lambda: win.status is not None and bool(labels.device.text()), timeout=WAIT_MS)
        assert win.search.empty.welcome and labels.reranker.text() == "Reranker: none"
        assert notice.kind == "missing" and not notice.isVisible()  # said, and kept until there is something to rank
        assert not panel.problems_button.isVisible()  # "Not indexed: 0" answers a question nobody asked
        # the plain names on the bar; the threads, precision, query path and pooling on hover
        assert "(" not in labels.device.text() and "queries" not in labels.device.text(), labels.device.text()
        tip = labels.device.toolTip()
        assert tip.startswith(f"Device: {win.status.device}\n") and "Queries: " in tip
        assert labels.models.text() == "Model: all-MiniLM-L6-v2" and "Pooling: " in labels.models.toolTip()
        shot(win, "first_start.png")

        docs = tmp_path / "docs"
        docs.mkdir()
        (docs / "volcano.txt").write_text(TEXTS["volcano.txt"], encoding="utf-8")
        (docs / "blank.html").write_text("<html><body> </body></html>")  # no text found: not indexed
        with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
            win.add_paths([str(docs)])
        qtbot.waitUntil(lambda: notice.isVisible() and panel.problems_button.isVisible(), timeout=WAIT_MS)
        assert notice.label.full_text() == SHARPER
        assert "no cross-encoder weights were found" in notice.label.toolTip()  # the cause, for who knows the word
        assert panel.problems_button.text() == "Not indexed: 1"
        win.close()
