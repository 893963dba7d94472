"""What the progress strip and the status line say during and after a long sync, in the real window at 1280×800
(offscreen): the counts and time left stay in sight with a folder queued, a resumed sync says it resumes, the
meaning line follows the library's coverage, and a sync's summary stays until something replaces it.
Screenshots go to gui_window.SHOTS for a person to look at."""

from __future__ import annotations

import threading

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtGui import QTextDocumentFragment
from PySide6.QtWidgets import QApplication

from conftest import build_tiny_library

from gui_window import WAIT_MS, shot, window_maker

TEXTS = {"volcano.txt": "The volcano erupted and molten rock flowed down to the sea.",
         "bread.md": "A recipe for sourdough bread with a long cold proof."}
EMBEDDING = "searchable by words · slowed for other programs: 1 of 2 threads · meaning: 1% of passages"


@pytest.fixture
def open_window(qtbot, tmp_path, tiny_bi_encoder_dir, tiny_encoder):
    data = build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder)
    yield from window_maker(qtbot, data, tiny_encoder)


def test_the_counts_and_time_left_stay_in_sight_with_a_folder_queued(qtbot, open_window):
    """The strip's one label was cut in the middle: with "Next: /tmp/s17/win/extra" beside it the counts went
    ("Indexing home — Searchable by words · …03 — 5.8 passages/s"). The folder names give way, never the counts."""
    from searchapp.base.progress import Progress
    from searchapp.gui.write_jobs import cancel_summary
    from searchapp.library.sync.contract import SyncReport

    win = open_window()
    strip = win.progress
    strip.start("Indexing home")
    strip.show_queued(["/tmp/s17/win/extra"])
    for i in range(12):  # 32 passages every 4 s: a rate and a time left
        strip.show_progress("Indexing home", Progress("embedding", 32 * i, 7403, EMBEDDING), 4.0 * i)
    QApplication.processEvents()
    shot(win, "strip_queued.png")
    shown = strip.label.text()
    assert "Embedding 352 of 7,403 passages" in shown and "8.0 passages/s, about 15 min left" in shown, shown
    assert strip.queued.text() == "Next: /tmp/s17/win/extra"  # a short path is whole too
    strip.show_queued(["/home/someone/Documents/Projects/2025/a folder with a rather long name/and deeper still"])
    QApplication.processEvents()
    shown = strip.label.text()
    assert "Embedding 352 of 7,403 passages" in shown and "about 15 min left" in shown, shown
    assert strip.queued.is_elided() and strip.queued.text().endswith("deeper still")
    # A narrow window (900×600): "Next: …" kept its width and the counts were cut ("Reading …es/s, about 1 min
    # left"); it gives way to them now, and comes back as the window widens
    win.resize(900, 600)
    QApplication.processEvents()
    shot(win, "strip_queued_900.png")
    shown = strip.label.text()
    assert shown.startswith("Embedding 352 of 7,403 passages · 8.0 passages/s, about 15 min left"), shown
    win.resize(1280, 800)
    QApplication.processEvents()
    assert strip.queued.isVisible() and strip.queued.text().startswith("Next: /home/")
    # What a Cancel kept, too long for the strip: cut at its end, its counts first (cut in its middle it read
    # "… meanwhile); 53 n…dexed says why"), whole on hover
    said = cancel_summary(SyncReport(added=443, chunks_pending=1872, skipped=51, quiet=2, failed=4, ocr_pending=46))
    strip.show_outcome(said + " Changes in your folders wait for it too.")
    QApplication.processEvents()
    shown = strip.label.text()
    assert strip.label.is_elided() and shown.endswith("…"), shown
    assert shown.startswith(said.split(": Not indexed")[0]), shown
    assert "53 not indexed (46 of them waiting for OCR)" in said, said


@pytest.mark.parametrize("stage, name", [("ocr", "Reading by OCR 11 of 94 scans and images"),
                                         ("rereading", "Reading again 11 of 94 scanned PDFs (this version's reader)")])
def test_reading_scans_shows_its_rate_and_time_left(qtbot, open_window, stage, name):
    """OCR ran for 8 minutes with no time left on the strip, which says one for reading files and embedding. The
    scanned PDFs an upgrade reads again (ocr/step.py) are a stage of their own, with a rate and time left too."""
    from searchapp.base.progress import Progress

    win = open_window()
    strip = win.progress
    strip.start("Re-syncing")
    strip.show_queued(["/tmp/s17/win/extra"])
    for i in range(12):  # one file every 5 s
        strip.show_progress("Re-syncing", Progress(stage, i, 94, f"scan{i:03d}.pdf"), 5.0 * i)
    shot(win, f"strip_{stage}.png")
    assert strip.rate == 0.2 and strip.eta_seconds == (94 - 11) * 5.0
    shown = strip.label.text()
    assert f"{name} · 0.2 files/s, about 7 min left" in shown, shown


def test_the_strip_leads_with_the_step_and_names_a_file_read_for_long(qtbot, open_window):
    """"Reading files 120 / 3,000" said nothing of how many phases were still ahead, and a 400-page scan read for
    minutes left it standing on one count: the strip leads with the step (library/sync/steps.py) and, while one
    file takes long, names it with its seconds (library/sync/slow_read.py) where the time left stood."""
    from searchapp.base.progress import Progress

    win = open_window()
    strip = win.progress
    strip.start("Indexing Documents")
    for i in range(12):  # ten files every 4 s: a rate and a time left
        strip.show_progress("Indexing Documents", Progress("extracting", 10 * i + 1, 3000, f"note{i}.txt", step=2,
                                                           steps=3), 4.0 * i)
    assert strip.label.text().startswith("Step 2 of 3 · Reading 111 of 3,000 files · 2.5 files/s, about"), \
        strip.label.text()
    slow = Progress("extracting", 112, 3000, "big-scan.pdf", step=2, steps=3, slow="reading big-scan.pdf, 40 s…")
    strip.show_progress("Indexing Documents", slow, 88.0)
    QApplication.processEvents()
    shot(win, "strip_slow_read.png")
    assert strip.label.text() == "Step 2 of 3 · Reading 112 of 3,000 files · reading big-scan.pdf, 40 s… — " \
                                 "Indexing Documents"


@pytest.mark.parametrize("scans, ahead", [((1, "tenancy-scan.pdf"), " · then step 4: OCR of tenancy-scan.pdf"),
                                          ((193, ""), " · then step 4: OCR of 193 scans and images")])
def test_the_ocr_step_still_ahead_is_named_after_the_counts(qtbot, open_window, scans, ahead):
    """"Step 3 of 4 · Embedding 518 of 9,065 passages · about 2 min left" named no step 4: its time left read as the
    whole sync's, 193 scans and images still to read by OCR after it. The scans waiting (from the library's status)
    name it, after the counts and before what runs; the OCR step itself names its file as before."""
    from searchapp.base.progress import Progress

    win = open_window()
    strip = win.progress
    strip.show_scans_waiting(scans)
    strip.start("Indexing s5-files")
    for i in range(12):
        strip.show_progress("Indexing s5-files", Progress("embedding", 32 * i, 9065, EMBEDDING, step=3, steps=4),
                            4.0 * i)
    QApplication.processEvents()
    shot(win, f"strip_ocr_ahead_{scans[0]}.png")
    counts = "Step 3 of 4 · Embedding 352 of 9,065 passages · 8.0 passages/s, about 18 min left"
    assert strip.label.text().startswith(counts + ahead + " — Indexing s"), strip.label.text()  # then what runs
    strip.show_queued(["A check of your folders for changes"])  # "Next: …" gives way to it ("OCR of 19…" beside it)
    QApplication.processEvents()
    assert strip.label.text().startswith(counts + ahead), strip.label.text()
    win.resize(900, 600)  # no room for it whole: said shorter, or not at all (on hover), never cut
    QApplication.processEvents()
    shown = strip.label.text()
    rest = shown[len(counts):]
    assert shown.startswith(counts) and (rest in ("", " · then step 4: OCR", " · then OCR") or
                                         rest.startswith(ahead)), shown
    assert ahead in strip.label.toolTip()
    shot(win, f"strip_ocr_ahead_{scans[0]}_900.png")
    win.resize(1280, 800)
    strip.show_progress("Indexing s5-files", Progress("embedding", 400, 9065, EMBEDDING, step=3, steps=3), 50.0)
    assert "then step" not in strip.label.full_text()  # no scans wait: no step 4 to name
    strip.show_progress("Indexing s5-files", Progress("ocr", 0, 193, "tenancy-scan.pdf", step=4, steps=4), 52.0)
    assert strip.label.full_text() == "Step 4 of 4 · Reading by OCR 0 of 193 scans and images — Indexing s5-files — " \
                                      "tenancy-scan.pdf"


def hold_writes(monkeypatch):
    """Holds the window's first write at its first progress report until the returned gate is set."""
    import threading

    from searchapp.gui.workers import Job

    gate, reached, real = threading.Event(), threading.Event(), Job.report

    def report(job, p) -> None:
        real(job, p)
        if job.write and not gate.is_set():
            reached.set()
            gate.wait(WAIT_MS / 1000)

    monkeypatch.setattr(Job, "report", report)
    return gate, reached


@pytest.mark.parametrize("value, title", [("quit", "Resuming the indexing stopped at quit"),
                                          ("interrupted", "Resuming the indexing cut short last time")])
def test_a_resumed_sync_says_so_in_the_strip_for_as_long_as_it_runs(qtbot, open_window, monkeypatch, value, title):
    """After Quit and resume, the next start said "Re-syncing — Scanning 2,000": the status line's "Resuming …"
    was replaced at once by the restored query's "10 results in 81 ms". The strip's title says it now."""
    from PySide6.QtCore import QSettings

    from searchapp.gui.quit_guard import RESUME_KEY

    first = open_window()
    ini = QSettings(str(first.config.data_dir / "gui.ini"), QSettings.Format.IniFormat)
    ini.setValue(RESUME_KEY, value)  # as a Quit mid-sync (or a crash) leaves it
    ini.sync()
    gate, reached = hold_writes(monkeypatch)
    win = open_window()
    assert reached.wait(WAIT_MS / 1000)
    qtbot.waitUntil(lambda: win.progress.isVisible() and " — " in win.progress.label.full_text(), timeout=WAIT_MS)
    win.statusBar().showMessage("10 results in 81 ms")  # the restored query's line, as it stood 4 s later
    shot(win, f"resumed_{value}.png")
    said = win.progress.label.full_text()
    gate.set()
    assert f" — {title}" in said, said  # after the step and its counts ("Step 1 of 3 · Scanning 2 files")
    qtbot.waitUntil(lambda: not win.runner.busy_writing(), timeout=WAIT_MS)


def test_a_sync_s_summary_stays_until_something_else_is_said(qtbot, open_window, monkeypatch, tmp_path):
    """"6 files scanned: 6 added…" went after 15 s: a person who looked away from a 14-minute sync never saw it.
    It stays until the next thing the window says (a search's line)."""
    from searchapp.gui.main_window import MainWindow

    said: list[tuple[str, int]] = []
    real = MainWindow._say

    def say(win, message: str, ms: int = 8000) -> None:
        said.append((message, ms))
        real(win, message, ms)

    monkeypatch.setattr(MainWindow, "_say", say)
    win = open_window()
    extra = tmp_path / "extra"
    extra.mkdir()
    for i in range(3):
        (extra / f"trip{i}.txt").write_text(f"Packing list {i}: boots, rope and a map of the Dolomites.")
    with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
        win.add_paths([str(extra)])
    summary = next((s for s in said if s[0].startswith("3 files scanned: 3 added")), None)
    assert summary is not None, said
    qtbot.waitUntil(lambda: not win._status_reading, timeout=WAIT_MS)  # the counts after it are in
    shot(win, "sync_summary_kept.png")
    assert summary[1] == 0, summary  # no timer takes it away
    assert win.statusBar().currentMessage() == summary[0]
    win.search.search_box.setText("Dolomites")
    with qtbot.waitSignal(win.searchFinished, timeout=WAIT_MS):
        win.run_search()
    assert " results in " in win.statusBar().currentMessage(), win.statusBar().currentMessage()


def answer(win, qtbot, result, k: int = 10):
    """Show `result` as the answer to the query in the box, through the window's own search path."""
    with qtbot.waitSignal(win.searchFinished, timeout=WAIT_MS):
        win.search.submit("search", lambda p, c: result, k)


def partial_result(mode: str, percent: int, rows: list[str], volcano: str):
    """A result found while `percent`% of passages had meaning: one row per entry of `rows`, "match" (it had a
    vector) or "words" (its file had none yet)."""
    from searchapp.base.types import Hit, StageScores
    from searchapp.library.search.result import MEANING, Notice, SearchResult

    hits = [Hit(i, volcano, None, 0, 10, "The volcano erupted",
                StageScores(dense=0.5 if row in ("match", "similarity") else None, lexical=3.0, fused=0.6 if row == "match" else None,
                            words=0.9),
                order_label=row if mode == "hybrid" else "similarity" if mode == "dense" else "bm25")
            for i, row in enumerate(rows)]
    result = SearchResult("volcano", mode, hits, False, notices=[Notice(MEANING, f"meaning: {percent}% of passages")],
                          timings_ms={"total": 81.0})
    result.meaning_percent = percent
    return result


def library_status(embedded: int, chunks: int):
    from searchapp.library import LibraryStatus

    return LibraryStatus(data_dir="/d", roots=[], files={"ok": 2}, chunks=chunks, vectors=embedded, consistent=True,
                         failed=[], bi_encoder={}, reranker={}, device="CPU", embedded=embedded)


def test_the_meaning_line_says_only_what_is_true_of_the_rows_shown(qtbot, open_window):
    """In Words mode the line still spoke of meaning; at "0%" (rounded down) it pointed at grey "words" scores
    while every row showed a match score with a meaning part."""
    win = open_window()
    volcano = str(win.config.data_dir)
    win.search.search_box.setText("volcano")
    bar = win.statusBar()
    answer(win, qtbot, partial_result("lexical", 4, ["bm25"] * 3, volcano))
    assert bar.currentMessage() == "3 results in 81 ms", bar.currentMessage()  # meaning is no part of Words
    answer(win, qtbot, partial_result("hybrid", 0, ["match"] * 3, volcano))
    shot(win, "meaning_under_1.png")
    assert bar.currentMessage() == ("3 results in 81 ms · meaning covers under 1% of passages so far; the rest are "
                                    "found by their words until indexing finishes"), bar.currentMessage()
    answer(win, qtbot, partial_result("hybrid", 12, ["match", "words"], volcano))
    assert bar.currentMessage().endswith('(their score, in grey, reads "words")'), bar.currentMessage()


def test_the_meaning_line_follows_the_library_and_the_search_runs_again_when_meaning_is_complete(qtbot, open_window):
    """After embedding ended and OCR ran for 8 minutes the line still said "meaning covers 4% … a search by meaning
    finds only those" over the results found then."""
    win = open_window()
    win.search.mode_box.set_mode("dense")  # Meaning, as the newcomer's search was
    win.search.search_box.setText("volcano")
    bar = win.statusBar()
    answer(win, qtbot, partial_result("dense", 4, ["similarity"] * 2, str(win.config.data_dir)))
    assert "meaning covers 4% of passages" in bar.currentMessage()
    win.statusRefreshed.emit(library_status(100, 1000))  # 10%: not yet worth a word
    assert "meaning covers 4% of passages" in bar.currentMessage()
    win.statusRefreshed.emit(library_status(370, 1000))
    shot(win, "meaning_moved.png")
    assert bar.currentMessage() == ("2 results in 81 ms · found when meaning covered 4% of passages; it covers 37% "
                                    "now: press Enter to search again"), bar.currentMessage()
    with qtbot.waitSignal(win.searchFinished, timeout=WAIT_MS) as again:  # complete: the search runs again
        win.statusRefreshed.emit(library_status(1000, 1000))
    assert again.args[0].mode == "dense" and again.args[0].meaning_percent is None
    shot(win, "meaning_complete.png")
    assert "meaning" not in bar.currentMessage() and " results in " in bar.currentMessage(), bar.currentMessage()


def test_a_message_cut_even_with_the_labels_gone_is_whole_on_hover(qtbot):
    """A first sync's summary with its notes ran past the window's edge at 1280 px, "… 3 files read by OCR" unseen
    (the window newcomer's screenshot): the status bar's tooltip has it whole, and only while it is cut."""
    from PySide6.QtWidgets import QMainWindow

    from searchapp.gui.status_labels import StatusLabels

    w = QMainWindow()
    qtbot.addWidget(w)
    bar = w.statusBar()
    labels = StatusLabels(bar)
    labels.device.setText("Device: CPU")
    w.resize(900, 200)
    w.show()
    qtbot.waitExposed(w)
    long = "2,025 files scanned: 2,023 added, 0 updated, 0 removed, 1 not indexed; " * 3 + "3 files read by <b>OCR</b>"
    bar.showMessage(long)
    assert labels.device.isHidden() and long in QTextDocumentFragment.fromHtml(bar.toolTip()).toPlainText()
    bar.showMessage("10 results in 61 ms")
    assert bar.toolTip() == "" and not labels.device.isHidden()


@pytest.mark.parametrize("said_by", ["sync", "update"])
def test_a_cancel_is_said_once_and_a_summary_goes_when_the_next_write_starts(qtbot, open_window, said_by):
    """After Cancel the strip (until OK) and the status line (15 s) said the same sentence, one above the other: the
    strip alone says it now, the status line only while a queued write has the strip. And the last sync's summary
    ("25 files scanned: 23 added…") stood under the next sync's strip as if it were that sync's: it goes when the
    person's next write starts, the window's own update's too ("Changes in your folders indexed — …")."""
    from searchapp.base.errors import Cancelled
    from searchapp.gui.changes import Changes
    from searchapp.library.sync.contract import SyncReport

    go = threading.Event()

    def stop(progress, cancel):  # a write under way until the test lets it stop
        go.wait(WAIT_MS / 1000)
        raise Cancelled("stopped")

    win = open_window()
    writes, said = win.writes, win.statusBar().currentMessage
    if said_by == "sync":
        writes.sync_done(SyncReport(scanned=25, added=23))
    else:
        win.folder_watch._say_summed(SyncReport(scanned=25, added=23), frozenset())
    assert "25 files scanned: 23 added" in said(), said()
    with qtbot.waitSignal(writes.idle, timeout=WAIT_MS):
        writes.submit("Re-syncing", stop, Changes(), stopped="Cancelled; nothing lost.")
        qtbot.waitUntil(lambda: win.progress.label.full_text() == "Re-syncing", timeout=WAIT_MS)
        assert "25 files scanned" not in said(), said()  # gone when the Re-sync started
        go.set()
    assert win.progress.isVisible() and win.progress.label.full_text() == "Cancelled; nothing lost."
    assert said() != "Cancelled; nothing lost.", said()  # said once, in the strip
    with qtbot.waitSignal(writes.idle, timeout=WAIT_MS):  # a folder queued behind it takes the strip first
        writes.submit("Re-syncing", stop, Changes(), stopped="Cancelled again; nothing lost.")
        writes.submit("Indexing more", lambda progress, cancel: None, Changes())
    assert said() == "Cancelled again; nothing lost."
    assert win.progress.label.full_text() == "Cancelled again; nothing lost."


def test_similar_files_shown_again_after_a_change_keep_the_line_the_change_said(qtbot, open_window):
    """A Re-sync under "Similar files" ran them again and "10 results in 17 ms" took the line at once from the
    Re-sync's summary (its "1 folder(s) missing" never read), where a query's rows run again quietly."""
    from searchapp.gui.changes import Changes

    win = open_window()
    done = []
    win.searchFinished.connect(done.append)
    win.search.search_box.setText("volcano")
    win.run_search()
    qtbot.waitUntil(lambda: bool(done), timeout=WAIT_MS)
    done.clear()
    win.discover.show_similar(win.search.results_model.hit(0).path)
    qtbot.waitUntil(lambda: bool(done), timeout=WAIT_MS)
    assert win.search.similar is not None and " in " in win.statusBar().currentMessage()  # "1 result in 35 ms"
    done.clear()
    win.statusBar().showMessage("2 files scanned: 0 added; 1 folder(s) missing, kept as they were", 0)
    win.search.on_changes(Changes(files=True))
    qtbot.waitUntil(lambda: bool(done), timeout=WAIT_MS)
    assert win.statusBar().currentMessage() == "2 files scanned: 0 added; 1 folder(s) missing, kept as they were"
