"""The progress strip says the measured rate and the time left (base/rate.py), on a clock the test drives."""

from __future__ import annotations

from searchapp.base.progress import Progress
from searchapp.gui.progress_view import ProgressView

MESSAGE = "searchable by words · meaning: 3% of passages"


def test_the_strip_shows_passages_per_second_and_the_time_left(qtbot):
    view = ProgressView()
    qtbot.addWidget(view)
    view.start("Indexing docs")
    for i in range(3):  # too early: no rate, no time left
        view.show_progress("Indexing docs", Progress("embedding", 32 * i, 2000, MESSAGE), 4.0 * i)
        assert "/s" not in view.label.full_text() and view.eta_seconds is None
    for i in range(3, 7):
        for k in range(40):  # the window polls the same report ten times a second
            view.show_progress("Indexing docs", Progress("embedding", 32 * i, 2000, MESSAGE), 4.0 * i + 0.1 * k)
    # 32 passages every 4 s; the newest report (192 done) came at 24 s and it is 27.9 s now
    assert view.rate == 8.0
    assert view.eta_seconds == (2000 - 192) / 8.0 - 3.9
    assert "8.0 passages/s, about 4 min left" in view.label.full_text(), view.label.full_text()
    assert "Embedding 192 of 2,000 passages" in view.label.full_text()


def test_a_long_strip_is_cut_in_the_middle_not_widening_the_window(qtbot):
    # Mid-sync the strip says title, meaning's share, counts and the time left (~860 px of text): the window's
    # minimum width followed it past a small screen's 800 px. Now the middle is cut; the counts and the time left
    # lead, whole.
    view = ProgressView()
    qtbot.addWidget(view)
    view.start("Indexing Documents-from-the-old-laptop")
    for i in range(8):
        view.show_progress("Indexing Documents-from-the-old-laptop", Progress("embedding", 32 * i, 20000, MESSAGE),
                           4.0 * i)
    assert view.minimumSizeHint().width() < 560, view.minimumSizeHint().width()
    view.resize(500, view.height())
    view.show()
    qtbot.waitExposed(view)
    shown, full = view.label.text(), view.label.full_text()
    assert shown != full and "…" in shown and shown.startswith("Embedding") and shown.endswith(" min left"), shown
    assert view.label.toolTip() and "min left" in full


def test_a_new_stage_starts_its_own_rate(qtbot):
    view = ProgressView()
    qtbot.addWidget(view)
    view.start("Indexing docs")
    for i in range(8):  # 5 files a second while reading files
        view.show_progress("Indexing docs", Progress("extracting", 20 * i, 400), 4.0 * i)
    assert view.rate == 5.0 and "5.0 files/s" in view.label.full_text()
    view.show_progress("Indexing docs", Progress("searchable", 500, 500, "500 passages searchable by words"), 40.0)
    assert view.rate is None and view.eta_seconds is None and "/s" not in view.label.full_text()
    view.show_progress("Indexing docs", Progress("embedding", 0, 500, MESSAGE), 41.0)
    assert view.rate is None  # the files' rate says nothing of embedding


def test_the_big_folder_estimate_is_this_library_s_measured_pace():
    from searchapp.gui.big_folder import BigFolderCheck, Pace, estimate
    from searchapp.library import LibraryStatus

    # the folder: 1,783 files making 46,529 passages, at 8 passages/s
    text = estimate(1783, Pace(8.0, "by the last sync here", 46_529 / 1783))
    assert "about 1 h 37 min on this computer (8.0 passages/s, measured by the last sync here; " \
           "about 26 passages a file, as in this library)" in text, text
    assert "at least 1 h 37 min" in estimate(1783, Pace(8.0, "by the last sync here", 46_529 / 1783), complete=False)
    check = BigFolderCheck.__new__(BigFolderCheck)  # its status side only: no window needed
    check.pace = Pace()
    st = LibraryStatus(data_dir="/d", roots=[], files={"ok": 40}, chunks=120, vectors=0, consistent=True, failed=[],
                       bi_encoder={}, reranker={}, device="CPU", meaning_rate=2.5)
    check.show_status(st)
    assert (check.pace.rate, check.pace.per_file) == (2.5, 3.0)
    check.show_status(LibraryStatus(data_dir="/d", roots=[], files={"ok": 5}, chunks=500, vectors=0, consistent=True,
                                    failed=[], bi_encoder={}, reranker={}, device="CPU"))
    assert check.pace.rate == 2.5 and check.pace.per_file is None  # 5 files tell nothing of a new folder's


def test_a_writer_handover_s_wait_is_not_counted_in_the_rate(qtbot):
    """64 passages/s, then 300 s waiting for another writer: after it the strip says 64/s again or nothing, never
    the ~6/s and ten-times time left that a window spanning the wait gives (the wait is no measure of the pace)."""
    from searchapp.library.sync.handover import WAITING

    view = ProgressView()
    qtbot.addWidget(view)
    view.start("Indexing docs")
    for i in range(21):  # one batch of 64 a second
        view.show_progress("Indexing docs", Progress("embedding", 64 * i, 100_000, MESSAGE), float(i))
    assert view.rate == 64.0
    view.show_progress("Indexing docs", Progress(WAITING, 0, 0, "another searchapp process is adding files"), 20.0)
    assert view.rate is None and "left" not in view.label.full_text()
    shown = []
    for k in range(1, 16):  # the wait ended at 320 s; a batch a second again
        view.show_progress("Indexing docs", Progress("embedding", 64 * (20 + k), 100_000, MESSAGE), 320.0 + k)
        shown.append(view.rate)
    assert all(r is None or r == 64.0 for r in shown), shown
    assert shown[-1] == 64.0 and view.eta_seconds == (100_000 - 64 * 35) / 64.0


def test_a_first_estimate_soon_and_a_bar_that_names_its_step(qtbot):
    """A 45 s sync showed no time left at "Reading 497 of 3,000 files" (a newcomer, n7): a first estimate comes
    after a few seconds and percent, said as one, then the settled one. And its bar went from 16 % to 4 % at the
    next step: the bar is the step's own, and says which ("Step 3 of 3: 4%")."""
    view = ProgressView()
    qtbot.addWidget(view)
    view.start("Indexing notes")
    assert view.bar.text() == ""  # busy: no report yet
    t = 0.0
    for i in range(9):  # 25 files every 0.5 s after a first slow one
        t = 0.0 if i == 0 else 1.5 + 0.5 * i
        view.show_progress("Indexing notes", Progress("extracting", 25 * i, 3000, step=2, steps=3), t)
    assert view.rate == 50.0 and view.eta_seconds == (3000 - 200) / 50.0
    assert "Reading 200 of 3,000 files · 50.0 files/s, about 56 s left (first estimate)" in view.label.full_text()
    assert view.bar.text() == "Step 2 of 3: 6%"
    for i in range(9, 41):
        t = 1.5 + 0.5 * i
        view.show_progress("Indexing notes", Progress("extracting", 25 * i, 3000, step=2, steps=3), t)
    assert "files/s, about" in view.label.full_text() and "first estimate" not in view.label.full_text()
    view.show_progress("Indexing notes", Progress("embedding", 160, 3739, MESSAGE, step=3, steps=3), t + 1)
    assert view.bar.text() == "Step 3 of 3: 4%"  # the step's own, starting over, named
    view.start("Re-syncing")
    view.show_progress("Re-syncing", Progress("embedding", 1, 4), 0.0)
    assert view.bar.text() == "25%"  # no step known: a bare percentage
