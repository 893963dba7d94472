"""What the window says, offscreen on a real tiny library: Rerank only where a reranker can run, result counts
and an empty result that says what to try, members named one way, a listing without scores, what Cancel kept,
an Open the desktop could not do, and Similar files as a chip with the query one Back away."""

from __future__ import annotations

import functools
import os

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel

from conftest import build_tiny_library

from corpus import committee_notes
from gui_window import WAIT_MS, close_window, search as search_in, shot, shown_window

TEXTS = {"volcano.txt": "The volcano erupted and molten rock flowed down to the sea.",
         "draft.txt": "A draft report on volcano safety for the island council.",
         "bread.md": "A recipe for sourdough bread with a long cold proof.",
         "notes.md": "Meeting notes: the volcano tour is booked for spring."}
SEARCH_WAIT = 600  # ms: longer than the as-you-type pause (350 ms)


@pytest.fixture
def open_window(qtbot, tmp_path, tiny_bi_encoder_dir, tiny_encoder):
    """open_window(models=…, search=…): the window over a tiny library of TEXTS (in win.docs)."""
    from searchapp.base.config import load_config
    from searchapp.library import Library

    data = build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder)
    made = []

    def make(models=None, **sections):
        overrides = {"index": {"backend": "exact"}, "models": {"reranker": "", **(models or {})}, **sections}
        config = load_config(data, env={}, overrides=overrides)
        lib = Library(config, encoder=tiny_encoder)
        win = shown_window(qtbot, config, lib)
        win.resize(1280, 800)
        win.docs = tmp_path / "docs"
        made.append((win, lib))
        return win

    yield make
    for win, lib in made:
        close_window(win, lib)


def search(qtbot, win, text: str, mode: str = "hybrid"):
    return search_in(qtbot, win, text, mode)


def test_rerank_is_greyed_and_says_how_to_get_one_while_no_reranker_can_run(qtbot, open_window):
    win = open_window(models={"reranker": "cross-encoder/not-in-the-cache"})  # asked for, not installed
    box = win.search.rerank_box
    qtbot.waitUntil(lambda: win.models_ready, timeout=WAIT_MS)
    assert not box.isEnabled() and not box.isChecked()
    assert "No reranker is installed" in box.toolTip() and "Download reranker" in box.toolTip()
    res = search(qtbot, win, "volcano")
    assert not res.reranked
    shot(win, "rerank_greyed.png")

    off = open_window()  # reranker = "": turned off in the settings
    qtbot.waitUntil(lambda: off.models_ready, timeout=WAIT_MS)
    assert not off.search.rerank_box.isEnabled() and "turned off in the settings" in off.search.rerank_box.toolTip()


def test_rerank_comes_back_ticked_once_a_reranker_loads(qtbot, open_window, tiny_cross_encoder_dir):
    win = open_window(models={"reranker": "cross-encoder/not-in-the-cache"})
    qtbot.waitUntil(lambda: win.models_ready, timeout=WAIT_MS)
    assert not win.search.rerank_box.isEnabled()
    with qtbot.waitSignal(win.statusRefreshed, timeout=WAIT_MS):
        win.session.apply_config(win.config.replace(models={"reranker": str(tiny_cross_encoder_dir)}))
    box = win.search.rerank_box
    assert box.isEnabled() and box.isChecked()  # search.rerank is on in the config: the person's choice kept
    assert win.labels.reranker.text() == "Reranker: not loaded yet"  # it loads with the first search by meaning
    win.search.search_box.setText("volcano")
    with qtbot.waitSignal(win.searchFinished, timeout=WAIT_MS, check_params_cb=lambda res: res.reranked):
        win.run_search()  # answered by words while it loads, then again, reranked
    assert win.labels.reranker.text() == "Reranker: on"


def test_one_result_is_singular_and_none_says_what_to_try(qtbot, open_window):
    win = open_window()
    search(qtbot, win, "sourdough", mode="lexical")
    assert win.statusBar().currentMessage().startswith("1 result in ")
    empty = win.findChild(QLabel, "emptyResults")
    assert not empty.isVisible()

    res = search(qtbot, win, "zeppelin", mode="lexical")
    assert not res.hits
    assert win.statusBar().currentMessage().startswith("No results")
    assert empty.isVisible() and empty.textFormat() == Qt.TextFormat.PlainText
    advice = empty.text().lower()
    assert "no results for “zeppelin”" in advice and "switch to words + meaning" in advice
    assert "remove a filter" not in advice  # none is set
    shot(win, "no_results.png")

    search(qtbot, win, "volcano type:pdf", mode="hybrid")  # a filter nothing passes
    assert empty.isVisible() and "remove a filter" in empty.text().lower() and "switch to" not in empty.text().lower()
    # which filter, and what the library has instead (the library says it: search/empty_reason.py)
    assert empty.text().startswith('No results for “volcano type:pdf”: no indexed file is of type "pdf" (types here: '
                                   "md 2, txt 2). Remove a filter"), empty.text()
    search(qtbot, win, "volcano type:pdf", mode="lexical")  # no other mode searches other files
    assert "switch to" not in empty.text().lower(), empty.text()
    search(qtbot, win, "volcano", mode="hybrid")
    assert not empty.isVisible()

    # No filter set, a phrase no file holds (a newcomer's): its chip is no filter, and meaning finds no other file
    search(qtbot, win, 'zzqxw "no such phrase"', mode="hybrid")
    assert win.filter_bar.filters() is None
    assert empty.text() == ('No results for “zzqxw "no such phrase"”: no file holds the phrase “no such phrase”. '
                            "Drop the quotes to search its words."), empty.text()


def test_the_advice_for_no_results_fits_the_parts_of_the_query():
    from searchapp.gui.empty_results import empty_text
    from searchapp.library import SearchResult

    def advice(query: str, mode: str = "hybrid", bar: bool = False) -> str:
        return empty_text(SearchResult(query, mode, [], False), bar)

    assert "Remove a filter" in advice("volcano -lava") and "no file holds" not in advice("volcano -lava")
    both = advice('"cold proof" bread', bar=True)  # a filter in the bar too: the phrase may be in a file it leaves out
    assert "Remove a filter" in both and "drop the quotes" in both and "no file holds" not in both, both
    assert ": no file holds a word starting with “zepp”. Remove a part" in advice("zepp*", mode="lexical")
    assert "switch to" not in advice('"cold proof"', mode="lexical")  # every mode requires the phrase
    assert ": no file holds “zepp*” and “a b” together." in advice('zepp* "a b"')


def every_text(widget) -> list[str]:
    """What a person can read in `widget` and below it: labels, buttons, item views' cells and tooltips."""
    from PySide6.QtCore import Qt as _Qt
    from PySide6.QtWidgets import QAbstractButton, QAbstractItemView, QTextBrowser, QWidget

    out = []
    for w in [widget, *widget.findChildren(QWidget)]:
        out.append(w.toolTip())
        if isinstance(w, (QLabel, QAbstractButton)):
            out.append(w.text())
        elif isinstance(w, QTextBrowser):
            out.append(w.toPlainText())
        elif isinstance(w, QAbstractItemView) and w.model() is not None:
            model, stack = w.model(), [None]
            while stack:
                parent = stack.pop()
                from PySide6.QtCore import QModelIndex
                p = QModelIndex() if parent is None else parent
                for r in range(model.rowCount(p)):
                    for c in range(model.columnCount(p)):
                        i = model.index(r, c, p)
                        out += [str(i.data(_Qt.ItemDataRole.DisplayRole) or ""), str(i.data(_Qt.ItemDataRole.ToolTipRole) or "")]
                    stack.append(model.index(r, 0, p))
    return out


def test_members_are_named_one_way_wherever_a_person_reads_them(qtbot, open_window, tmp_path):
    import zipfile

    from searchapp.base.member_paths import DISPLAY_SEP, MEMBER_SEP

    win = open_window()
    more = tmp_path / "zips"
    more.mkdir()
    same = "The lighthouse keeper logs every passing ship in a blue notebook.\n" * 3
    for name in ("first.zip", "second.zip"):
        with zipfile.ZipFile(more / name, "w") as z:
            z.writestr("logs/keeper.txt", same)  # the same member in both: exact copies
            z.writestr("logs/broken.pdf", b"%PDF-1.4 not really a pdf")  # not indexed
    with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
        win.add_paths([str(more)])
    member = str(more / "first.zip") + MEMBER_SEP + "logs/broken.pdf"
    assert any(p == member for p, _, _ in win.status.not_indexed or win.status.failed)

    problems = win.library_panel.show_problems()
    dupes = win.discover.open_duplicates(0.9)
    qtbot.waitUntil(lambda: dupes.report is not None and dupes.refresh_button.isEnabled(), timeout=WAIT_MS)
    assert dupes.report.exact
    dupes.tree.setCurrentItem(dupes.tree.topLevelItem(0).child(0))
    search(qtbot, win, "lighthouse keeper", mode="lexical")
    with qtbot.waitSignal(win.previewShown, timeout=WAIT_MS):
        win.search.results_view.setCurrentIndex(win.search.results_model.index(0, 0))
    with qtbot.waitSignal(win.searchFinished, timeout=WAIT_MS):
        win.discover.show_similar(str(more / "first.zip") + MEMBER_SEP + "logs/keeper.txt")

    texts = every_text(win) + every_text(problems) + every_text(dupes) + [win.statusBar().currentMessage()]
    zipped = [t for t in texts if ".zip" + MEMBER_SEP in t]
    assert zipped == []
    assert any(("first.zip" + DISPLAY_SEP + "logs/broken.pdf") in t for t in every_text(problems))
    assert any(("second.zip" + DISPLAY_SEP + "logs/keeper.txt") in t for t in every_text(dupes))


def select_first(qtbot, win):
    with qtbot.waitSignal(win.previewShown, timeout=WAIT_MS):
        win.search.results_view.setCurrentIndex(win.search.results_model.index(0, 0))
    return win.selected_hit()


def test_an_open_the_desktop_could_not_do_is_said_with_show_in_folder_and_copy_path(qtbot, open_window):
    win = open_window()
    refused = []
    win.url_opener = lambda url: refused.append(url.toLocalFile()) or False  # no handler: openUrl → False
    search(qtbot, win, "sourdough", mode="lexical")
    hit = select_first(qtbot, win)
    strip = win.preview.failure
    assert not strip.isVisible()
    qtbot.mouseClick(win.preview.open_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(strip.isVisible, timeout=WAIT_MS)
    assert refused == [os.path.abspath(hit.path)]
    text = strip.label.text()
    assert strip.label.textFormat() == Qt.TextFormat.PlainText
    assert "Could not open" in text and "bread.md" in text
    assert strip.folder_button.isVisible() and strip.copy_button.isVisible()
    shot(win, "open_failed.png")

    qtbot.mouseClick(strip.copy_button, Qt.MouseButton.LeftButton)
    assert QApplication.clipboard().text() == os.path.abspath(hit.path)
    qtbot.mouseClick(strip.folder_button, Qt.MouseButton.LeftButton)  # the folder fails too: said, Copy path left
    assert refused[-1] == os.path.dirname(os.path.abspath(hit.path))
    assert "Could not show the folder" in strip.label.text() and not strip.folder_button.isVisible()

    win.url_opener = win.opened.append  # a desktop that opens things: no strip
    search(qtbot, win, "volcano", mode="lexical")
    assert not strip.isVisible()
    select_first(qtbot, win)
    qtbot.mouseClick(win.preview.open_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(win.opened) == 1, timeout=WAIT_MS)
    assert not strip.isVisible()


def marked_rows(win) -> list[bool]:
    from searchapp.gui.highlight import MARK_STYLE
    from searchapp.gui.results_model import HTML_ROLE, ResultsModel

    model, col = win.search.results_model, ResultsModel.COLUMNS.index("Passage")
    return [MARK_STYLE in str(model.index(r, col).data(HTML_ROLE) or "") for r in range(model.rowCount())]


def shown_paths(win) -> list[str]:
    from searchapp.gui.results_model import HIT_ROLE

    model = win.search.results_model
    return [model.index(r, 0).data(HIT_ROLE).path for r in range(model.rowCount())]


def test_similar_files_is_a_chip_in_place_of_the_query_and_back_restores_the_query_and_its_results(qtbot, open_window):
    win = open_window()
    ctl = win.search
    search(qtbot, win, "volcano", mode="lexical")
    before = shown_paths(win)
    assert len(before) == 3 and all(marked_rows(win)) and not ctl.back_button.isEnabled()
    target = str(win.docs / "volcano.txt")
    with qtbot.waitSignal(win.searchFinished, timeout=WAIT_MS) as sig:
        win.discover.show_similar(target)
    assert sig.args[0].mode == "similar"
    assert ctl.search_box.text() == ""  # the old query's words found none of these
    assert ctl.similar_chip.isVisible() and ctl.similar_chip.label.text() == "Similar to volcano.txt"
    assert ctl.similar_chip.label.textFormat() == Qt.TextFormat.PlainText
    assert shown_paths(win) and not any(marked_rows(win))  # no query words highlighted
    assert win.query_chips.labels() == [] and ctl.back_button.isEnabled()
    shot(win, "similar_chip.png")

    ctl.k_box.setValue(ctl.k_box.value() + 1)  # an option changed with no query: the similar files stay
    qtbot.wait(SEARCH_WAIT)
    assert ctl.similar_chip.isVisible() and ctl.result.mode == "similar"

    win.activateWindow()
    ctl.results_view.setFocus()
    qtbot.keyClick(ctl.results_view, Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)  # Back
    assert ctl.search_box.text() == "volcano" and not ctl.similar_chip.isVisible()
    assert shown_paths(win) == before and all(marked_rows(win))
    assert not ctl.back_button.isEnabled()

    with qtbot.waitSignal(win.searchFinished, timeout=WAIT_MS):
        win.discover.show_similar(target, page=None)
    qtbot.mouseClick(ctl.similar_chip.close_button, Qt.MouseButton.LeftButton)  # the chip's ✕ is Back too
    assert ctl.search_box.text() == "volcano" and shown_paths(win) == before

    with qtbot.waitSignal(win.searchFinished, timeout=WAIT_MS):
        win.discover.show_similar(target)
    search(qtbot, win, "bread", mode="lexical")  # a new query replaces the chip; Back still returns
    assert not ctl.similar_chip.isVisible()
    qtbot.mouseClick(ctl.back_button, Qt.MouseButton.LeftButton)
    assert ctl.search_box.text() == "volcano" and shown_paths(win) == before


def past_first_batch(win) -> bool:
    job = win.writes.active_write()
    p = job.progress if job else None
    return p is not None and (p.stage == "extracting" and p.done >= 70 or p.stage == "embedding")


def test_cancel_says_how_many_files_it_kept_and_that_the_rest_comes_with_the_next_sync(qtbot, open_window, tmp_path):
    import re

    from PySide6.QtWidgets import QPushButton

    win = open_window()
    many, n = committee_notes(tmp_path)
    win.add_paths([str(many)])
    qtbot.waitUntil(lambda: past_first_batch(win), timeout=WAIT_MS)
    with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
        qtbot.mouseClick(win.findChild(QPushButton, "cancelButton"), Qt.MouseButton.LeftButton)
    kept = next(r.files for r in win.status.roots if r.path == str(many))
    assert 0 < kept <= n
    tree = win.library_panel.tree
    row = next(tree.topLevelItem(i) for i in range(tree.topLevelItemCount())
               if tree.topLevelItem(i).data(0, Qt.ItemDataRole.UserRole) == str(many))
    synced = next(r.last_sync for r in win.status.roots if r.path == str(many))  # its words pass may have ended
    assert row.text(3) == ("just now" if synced else "not finished"), row.text(3)  # never "never" beside its files
    assert synced or "Re-sync (F5)" in row.toolTip(3)
    strip = win.progress
    said = strip.label.text()
    assert strip.isVisible() and strip.label.textFormat() == Qt.TextFormat.PlainText, said
    m = re.match(r"Cancelled; ([\d,]+) files done( \(([\d,]+) passages still to embed: found by their words "
                 r"meanwhile\))?\. Re-sync \(F5\) goes on where it stopped\.$", said)
    assert m, said
    assert int(m.group(1).replace(",", "")) == kept
    pending = win.status.chunks - win.status.embedded
    assert (int(m.group(3).replace(",", "")) if m.group(2) else 0) == pending
    assert win.statusBar().currentMessage() in (said, "")  # a search may say its own line after it
    shot(win, "cancel_said.png")
    qtbot.mouseClick(strip.dismiss_button, Qt.MouseButton.LeftButton)
    assert not strip.isVisible()


def test_a_big_folder_asks_first_with_its_count_and_time_and_leaves_out_the_subfolders_ticked(qtbot, open_window,
                                                                                              tmp_path, monkeypatch):
    from searchapp.base.config import load_config
    from searchapp.base.rate import format_left, format_rate
    from searchapp.gui.big_folder import BIG_FOLDER_FILES, PASSAGES_PER_FILE, estimate

    from searchapp.gui import big_folder
    from searchapp.library.sync.folder_count import count_files

    # The count stops after 0.5 s on a slow drive (a case of its own: test_trust4); this folder must be counted
    # whole however busy the machine is (at load 12 it stopped at 3,586 of 5,003).
    monkeypatch.setattr(big_folder, "count_files", functools.partial(count_files, time_limit_s=600.0))
    win = open_window()
    big = tmp_path / "big"
    (big / "cache").mkdir(parents=True)
    (big / "notes").mkdir()
    for i in range(BIG_FOLDER_FILES):
        (big / "cache" / f"c{i}.txt").write_bytes(b"x")
    (big / "notes" / "keeper.txt").write_text("The lighthouse keeper logs every passing ship.\n", encoding="utf-8")
    (big / "notes" / "pier.txt").write_text("A lighthouse stands at the end of the pier.\n", encoding="utf-8")
    (big / "readme.txt").write_text("What this folder holds.\n", encoding="utf-8")
    seen = []
    win.changed.connect(seen.append)

    win.add_paths([str(big)])
    prompt = win.writes.big_folders.prompt
    assert prompt is not None and prompt.isVisible() and not win.runner.busy_writing()  # nothing started yet
    text = prompt.text.text()
    assert prompt.text.textFormat() == Qt.TextFormat.PlainText
    assert f"{BIG_FOLDER_FILES + 3:,} files" in text and "is being measured" in text, text
    # Nothing measured in this library yet: a quick test of its model says how long on this computer, no constant
    checker = win.writes.big_folders
    qtbot.waitUntil(lambda: "measured just now by a quick test" in prompt.text.text(), timeout=WAIT_MS)
    rate = checker.pace.rate
    assert rate > 0 and estimate(BIG_FOLDER_FILES + 3, checker.pace) in prompt.text.text()
    assert f"{format_rate(rate)[:-2]} passages/s" in prompt.text.text()
    assert f"about {format_left((BIG_FOLDER_FILES + 3) * PASSAGES_PER_FILE / rate)} on this computer" in prompt.text.text()
    assert [prompt.list.item(i).text() for i in range(prompt.list.count())] == [
        f"cache — {BIG_FOLDER_FILES:,} files", "notes — 2 files"]
    assert prompt.cancel_button.isDefault()
    shot(prompt, "big_folder_prompt.png")
    qtbot.mouseClick(prompt.cancel_button, Qt.MouseButton.LeftButton)
    assert not prompt.isVisible() and not win.runner.busy_writing() and seen == []
    assert str(big) not in [r.path for r in win.library.status().roots]

    win.add_paths([str(big)])
    prompt = win.writes.big_folders.prompt
    prompt.list.item(0).setCheckState(Qt.CheckState.Checked)  # leave out cache/
    with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
        qtbot.mouseClick(prompt.index_button, Qt.MouseButton.LeftButton)
    assert next(r.files for r in win.status.roots if r.path == str(big)) == 3
    assert str(big / "cache") in win.config.scan.exclude
    assert str(big / "cache") in load_config(win.config.data_dir, env={}).scan.exclude  # saved for later syncs

    small = tmp_path / "small"
    small.mkdir()
    (small / "one.txt").write_text("One small file.\n", encoding="utf-8")
    with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
        win.add_paths([str(small)])  # a small folder: no question
    assert win.writes.big_folders.prompt is prompt


def test_quitting_mid_index_asks_and_the_next_start_resumes_it(qtbot, open_window, tmp_path):
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QPushButton

    from searchapp.gui.quit_guard import RESUME_KEY

    win = open_window()
    data, base = win.config.data_dir, len(TEXTS)
    many, n = committee_notes(tmp_path)
    win.add_paths([str(many)])
    qtbot.waitUntil(lambda: past_first_batch(win), timeout=WAIT_MS)
    quit_action = next(a for a in win.menuBar().actions()[0].menu().actions() if a.text() == "&Quit")
    quit_action.trigger()  # the write is still the runner's until the GUI thread hears it ended
    prompt = win.quit_guard.prompt
    assert prompt.isVisible() and "Indexing is under way: quit and resume next time?" in prompt.text()
    assert prompt.defaultButton().objectName() == "quitKeep"
    qtbot.mouseClick(prompt.findChild(QPushButton, "quitKeep"), Qt.MouseButton.LeftButton)
    assert win.isVisible()
    quit_action.trigger()
    qtbot.mouseClick(win.quit_guard.prompt.findChild(QPushButton, "quitConfirm"), Qt.MouseButton.LeftButton)
    assert not win.isVisible()  # closed: the sync stopped at its next batch
    st = win.library.status()
    root = next(r for r in st.roots if r.path == str(many))
    assert root.files < n or st.embedded < st.chunks  # stopped part way
    assert QSettings(str(data / "gui.ini"), QSettings.Format.IniFormat).value(RESUME_KEY) == "quit"
    win.library.close()

    again = open_window()  # the next start
    def done() -> bool:
        s = again.library.status()
        return s.files.get("indexed") == n + base and s.embedded == s.chunks and not again.runner.busy_writing()

    qtbot.waitUntil(done, timeout=WAIT_MS)
    assert not QSettings(str(data / "gui.ini"), QSettings.Format.IniFormat).contains(RESUME_KEY)
    assert again.last_dialog is None


def test_a_listing_shows_no_score_and_no_chart(qtbot, open_window):
    from searchapp.gui.results_model import ResultsModel

    win = open_window()
    res = search(qtbot, win, "type:md", mode="hybrid")  # only a field: the .md files, newest first
    assert len(res.hits) == 2
    model, col = win.search.results_model, ResultsModel.COLUMNS.index("Score")
    cells = [model.index(r, col).data(Qt.ItemDataRole.DisplayRole) for r in range(model.rowCount())]
    assert cells == ["", ""]  # was "bm25 0.0": as if it matched no word
    assert "no words to rank by" in model.index(0, col).data(Qt.ItemDataRole.ToolTipRole)
    assert win.inspector.plot.mode == "unscored"  # was a histogram over an axis of 0 … 1e-09
    assert "listed newest first" in win.inspector.summary.text() and "candidates" not in win.inspector.summary.text()
    search(qtbot, win, "volcano", mode="lexical")
    assert win.inspector.plot.mode == "histogram" and model.index(0, col).data(Qt.ItemDataRole.DisplayRole).startswith("bm25 ")


def test_an_open_the_desktop_could_not_do_from_the_duplicates_window_is_said_there(qtbot, open_window, tmp_path):
    from PySide6.QtWidgets import QPushButton

    win = open_window()
    (win.docs / "volcano copy.txt").write_text(TEXTS["volcano.txt"] + "\n", encoding="utf-8")
    with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
        win.resync(None)
    win.url_opener = lambda url: False  # no handler on this desktop
    dupes = win.discover.open_duplicates(0.9)
    qtbot.waitUntil(lambda: dupes.report is not None and dupes.refresh_button.isEnabled(), timeout=WAIT_MS)
    assert dupes.report.exact
    dupes.tree.setCurrentItem(dupes.tree.topLevelItem(0).child(0))
    assert not dupes.failure.isVisible()
    qtbot.mouseClick(dupes.findChild(QPushButton, "dupAOpen"), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(dupes.failure.isVisible, timeout=WAIT_MS)
    assert "Could not open volcano" in dupes.failure.label.text() and dupes.failure.copy_button.isVisible()
    assert not win.preview.failure.isVisible()  # said where the person clicked, not behind it


def test_a_dropped_folders_summary_names_what_skip_dirs_left_out(qtbot, open_window, tmp_path):
    """A newcomer's `House/build` permit was left out without a word: the sync's line says which folders
    `[scan] skip_dirs` left out, as `searchapp index` does."""
    win = open_window()
    house = tmp_path / "House"
    (house / "build").mkdir(parents=True)
    (house / "build" / "permit.txt").write_text("Building permit for the garage.", encoding="utf-8")
    (house / "notes.txt").write_text("The roofer comes on Monday.", encoding="utf-8")
    with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
        win.add_paths([str(house)])
    assert "folders left out by [scan] skip_dirs: build" in win.statusBar().currentMessage()


def test_a_folder_dropped_inside_an_indexed_one_says_so(qtbot, open_window, tmp_path):
    """A newcomer dropped `home/Notes` while `home` was indexed: "7 files scanned: 0 added…" alone, as if ignored."""
    win = open_window()
    home = tmp_path / "home"
    (home / "Notes").mkdir(parents=True)
    (home / "Notes" / "a.txt").write_text("The roofer comes on Monday.", encoding="utf-8")
    with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
        win.add_paths([str(home)])
    with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
        win.add_paths([str(home / "Notes")])
    assert f"{home / 'Notes'} is inside the indexed folder {home}; synced as part of it" in \
        win.statusBar().currentMessage()
