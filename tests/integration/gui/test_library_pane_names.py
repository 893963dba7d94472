"""The library pane as a person reads it: each folder by its own name first (where it is after it, greyed, and
the whole path in its tooltip), and what its time column means. Real widgets, offscreen, from a LibraryStatus
as the library reports it (the pane never reads the database)."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt
from painted_text import painted_text
from searchapp.gui.library_panel import LibraryPanel
from searchapp.library import LibraryStatus
from searchapp.library.report.status import RootStatus

FOLDERS = ["/tmp/s17/win/cli_folder", "/tmp/s17/win/extra", "/tmp/s17/win/home", "/tmp/s17/win/more_notes"]


def status_of(paths: list[str], last_sync: float | None = None) -> LibraryStatus:
    """As the newcomer's pane had it: each folder synced two minutes ago."""
    roots = [RootStatus(p, 1997, 7416, last_sync or time.time() - 120) for p in paths]
    return LibraryStatus(data_dir="/data", roots=roots, files={}, chunks=20 * len(paths), vectors=0,
                         consistent=True, failed=[], bi_encoder={}, reranker={}, device="cpu")  # type: ignore[typeddict-item]


@pytest.fixture
def panel(qtbot):
    panel = LibraryPanel()
    qtbot.addWidget(panel)
    panel.resize(340, 500)  # the window's pane at 1280×800
    panel.show()
    qtbot.waitExposed(panel)
    return panel


def test_each_folder_shows_its_own_name_first_and_whole_in_a_narrow_pane(qtbot, panel):
    panel.set_status(status_of(FOLDERS))
    tree = panel.tree
    for row, path in enumerate(FOLDERS):
        item = tree.topLevelItem(row)
        shown = painted_text(tree, tree.indexFromItem(item, 0))
        name = path.rsplit("/", 1)[1]
        assert shown[0] == name, shown  # the part a person knows it by, never the part cut away
        assert item.text(0) == path and path in item.toolTip(0)  # read aloud and hovered: the whole path
    where = painted_text(tree, tree.indexFromItem(tree.topLevelItem(2), 0))[1:]
    assert where and (where[0] == "/tmp/s17/win" or "…" in where[0]), where  # then where it is, greyed


def test_a_missing_folder_keeps_its_mark_beside_its_name(qtbot, panel):
    st = status_of(["/media/usb/Photos and scans from the summer"])
    st.roots[0].missing, st.roots[0].reason = True, "not found"
    panel.set_status(st)
    tree = panel.tree
    shown = painted_text(tree, tree.indexFromItem(tree.topLevelItem(0), 0))
    assert shown[0].startswith("Phot") and shown[0].endswith("(missing)"), shown  # cut, its mark is not


def test_the_time_column_is_named_for_what_it_is_the_files_checked(qtbot, panel):
    """roots.last_sync is written when a folder's files have been checked (its words pass), before the meaning
    and the OCR of the sync: under "Last sync", a 14-minute re-sync read "14 min ago" as it ended."""
    panel.set_status(status_of(["/tmp/s17/win/home"], last_sync=time.time() - 14 * 60))
    header = panel.tree.headerItem()
    assert header.text(3) == "Checked"
    assert "checked the folder's files" in header.toolTip(3) and "meaning" in header.toolTip(3)
    item = panel.tree.topLevelItem(0)
    assert item.text(3) == "14 min ago"
    assert "Files checked " in item.toolTip(3) and "come after" in item.toolTip(3)  # the hour, and what follows


def test_the_time_is_short_so_that_the_names_keep_their_room():
    from searchapp.gui.library_panel import format_when

    now = time.mktime((2026, 11, 30, 21, 0, 0, 0, 0, -1))
    at = lambda *ymdhm: time.mktime((*ymdhm, 0, 0, 0, -1))  # noqa: E731
    assert format_when(at(2026, 11, 30, 8, 51), now) == "08:51"  # today
    assert format_when(at(2026, 3, 2, 9, 5), now) == "2 Mar"  # this year
    assert format_when(at(2025, 11, 30, 20, 51), now) == "2025-11-30"
    assert format_when(now - 14 * 60, now) == "14 min ago" and format_when(None, now) == "never"


# Folders a newcomer could not tell apart: the same name in two places, and places that share a long start.
ALIKE = ["/tmp/t7q/projects/searchapp-sync/files", "/tmp/t7q/projects/searchapp-async/files",
         "/home/me/Documents/Work/Clients/Acme Corporation/Contracts",
         "/home/me/Documents/Work/Clients/Globex Industries/Contracts"]


def test_folders_of_one_name_are_told_apart_by_the_end_of_their_place(qtbot, panel):
    """In the pane at 1280×800 the place under a folder's name keeps its start and its end on a line of its own:
    beside the name, two folders named "files" read "files /t…nc" and "files /tm…nc"."""
    panel.set_status(status_of(ALIKE))
    tree = panel.tree
    seen = []
    for path in ALIKE:  # listed by name (two "files", two "Contracts"), not in the order the status gives
        item = next(tree.topLevelItem(i) for i in range(tree.topLevelItemCount())
                    if tree.topLevelItem(i).text(0) == path)
        shown = painted_text(tree, tree.indexFromItem(item, 0))
        place, name = path.rsplit("/", 1)
        assert shown[0] == name, shown
        start, _, end = shown[1].rpartition("…")
        assert len(shown) == 2 and place.startswith(start) and place.endswith(end) and end, shown
        assert len(shown[1]) >= 12, shown  # enough of it to read, not "…on"
        assert path in item.toolTip(0)
        seen.append(tuple(shown))
    assert len(set(seen)) == len(ALIKE), seen  # no two rows read alike


def test_a_place_is_cut_at_its_start_by_whole_folders_while_they_fit(qtbot):
    from PySide6.QtWidgets import QLabel

    from searchapp.gui.name_first import cut_at_start

    fm = QLabel().fontMetrics()
    place = "/home/me/Documents/Work/Clients/Acme"
    assert cut_at_start(place, fm, fm.horizontalAdvance(place)) == place  # whole when it fits
    assert cut_at_start(place, fm, fm.horizontalAdvance("…/Clients/Acme") + 2) == "…/Clients/Acme"
    tight = cut_at_start(place, fm, fm.horizontalAdvance("…/Acme") - 1)  # not even the last folder with its "/"
    assert tight.startswith("…") and place.endswith(tight[1:]) and fm.horizontalAdvance(tight) < fm.horizontalAdvance("…/Acme")


def test_a_folder_being_added_keeps_its_row_before_during_and_after_its_sync(qtbot, panel):
    """A newcomer added Archive2 beside Documents, Downloads, Mail and Photos: listed at the bottom while it waited
    for its first files, it jumped to the top mid-sync, once the library's status (ordered by path) had it. The
    pane lists every folder by its name, A to Z (as it shows them, name first), whatever the order the status
    gives and whether the folder is being added, synced or done."""
    home = "/tmp/nc/home"
    old = [f"{home}/{n}" for n in ("Documents", "Downloads", "Mail", "Photos")]
    new = f"{home}/Archive2"
    syncing = {new}
    panel.set_status(status_of(old), lambda p: p in syncing)

    def names() -> list[str]:
        tree = panel.tree
        return [tree.topLevelItem(i).data(0, Qt.ItemDataRole.UserRole).rsplit("/", 1)[1]
                for i in range(tree.topLevelItemCount())]

    expected = ["Archive2", "Documents", "Downloads", "Mail", "Photos"]
    panel.show_adding([new], lambda p: p in syncing)  # added: nothing of it committed yet
    waiting = names()
    st = status_of([new, *old])  # its first files are in: the status lists it (by path, as the store does)
    st.roots[0].last_sync, st.roots[0].files, st.roots[0].chunks = None, 0, 0
    panel.set_status(st, lambda p: p in syncing)
    during = names()
    syncing.clear()
    panel.show_adding([], lambda p: False)
    panel.set_status(status_of([*old, new], time.time()), lambda p: False)  # in whatever order a status gives them
    after = names()
    assert (waiting, during, after) == (expected, expected, expected)
    assert panel.tree.topLevelItem(0).text(3) == "just now" != "syncing…"


def test_folders_under_one_long_parent_keep_its_start_and_end_and_their_names(qtbot, panel):
    """A newcomer's four folders under /work/newcomer-files each read "…omer-files" under their names (cut at the
    start, the place said nothing): cut in the middle, the start and the end stay, and the tooltip has it whole."""
    parent = "/work/newcomer-files"
    paths = [f"{parent}/{n}" for n in ("docling", "pdf-renamed", "personal", "tika")]
    panel.resize(290, 500)  # the pane as narrow as the newcomer's (the window's was 290 px wide then)
    st = status_of(paths)
    for r, (files, members, chunks) in zip(st.roots, [(191, 0, 592), (55, 0, 1165), (17, 3, 40), (481, 211, 6465)], strict=True):
        r.files, r.members, r.chunks = files, members, chunks
    panel.set_status(st)
    tree = panel.tree
    for row, path in enumerate(paths):
        item = tree.topLevelItem(row)
        shown = painted_text(tree, tree.indexFromItem(item, 0))
        assert len(shown) == 2 and path.rsplit("/", 1)[1].startswith(shown[0].rstrip("…")), shown
        start, cut, end = shown[1].rpartition("…")
        assert shown[1] in (parent, "…/newcomer-files") or (
            cut and len(start) >= 3 and parent.startswith(start) and parent.endswith(end) and len(end) >= 3
        ), shown  # the parent whole, its last folder whole or "/wor…r-files"; never "…omer-files"
        assert path in item.toolTip(0)


def test_a_place_is_cut_in_its_middle_by_whole_folders_while_they_fit(qtbot):
    from PySide6.QtWidgets import QLabel

    from searchapp.gui.name_first import cut_in_middle

    fm = QLabel().fontMetrics()
    place = "/home/me/Documents/Work/Clients/Acme"
    width = fm.horizontalAdvance
    assert cut_in_middle(place, fm, width(place)) == place  # whole when it fits
    assert cut_in_middle(place, fm, width("/home/…/Clients/Acme") + 2) == "/home/…/Clients/Acme"
    assert cut_in_middle(place, fm, width("…/Acme") + 2) == "…/Acme"  # not even the first folder: the last whole
    tight = cut_in_middle("/work/newcomer-files", fm, width("/work/newcomer") - 1)  # no folder to leave out
    head, _, tail = tight.partition("…")
    assert head and tail and "/work/newcomer-files".startswith(head) and "/work/newcomer-files".endswith(tail), tight


def test_in_a_narrow_pane_the_counts_give_way_to_the_folders_name(qtbot, panel):
    """At 900×600 the counts, sized to their contents, took the pane's 262 px and every folder read "…" (the window
    newcomer): Checked, then Passages, give way to the name, and come back in a wider pane."""
    from searchapp.gui.library_panel import MIN_NAME_PX

    st = status_of(FOLDERS[:2])
    st.roots[0].files, st.roots[0].chunks = 937, 9065
    panel.set_status(st)
    tree = panel.tree
    assert not any(tree.isColumnHidden(c) for c in (1, 2, 3))  # 340 px: room for all
    panel.resize(262, 500)
    qtbot.waitUntil(lambda: tree.isColumnHidden(3))
    assert tree.columnWidth(0) >= MIN_NAME_PX and not tree.isColumnHidden(1), tree.columnWidth(0)
    shown = painted_text(tree, tree.indexFromItem(tree.topLevelItem(0), 0))
    assert shown[0] == "cli_folder", shown
    panel.resize(400, 500)
    qtbot.waitUntil(lambda: not tree.isColumnHidden(3) and not tree.isColumnHidden(2))



def test_a_name_that_fits_alone_keeps_its_line_and_its_mark_goes_below(qtbot, panel):
    """At 900×600 a move stopped halfway read "Work … (move stopped)" (the window newcomer's screenshots): the mark,
    never cut, took the name's room. A name that fits alone keeps its line; the mark opens the line below."""
    st = status_of(["/home/me/Work projects", "/home/me/Projects"])
    st.roots[0].moving_from = "/home/me/Projects"
    st.roots[1].missing, st.roots[1].reason = True, "not found"
    panel.resize(262, 500)
    panel.set_status(st)
    tree = panel.tree
    qtbot.waitUntil(lambda: tree.isColumnHidden(3))
    moved = painted_text(tree, tree.indexFromItem(tree.topLevelItem(1), 0))  # by name: Projects, Work projects
    assert moved[0] == "Work projects" and moved[1].startswith("(move stopped)"), moved
    missing = painted_text(tree, tree.indexFromItem(tree.topLevelItem(0), 0))
    assert missing[0] == "Projects (missing)", missing  # room for both: beside it, as before
    st.roots[0].last_sync = None  # stopped in its words pass: "not finished", and the way on is Moved…, not Re-sync
    panel.set_status(st)
    moved_row = tree.topLevelItem(1)
    assert moved_row.text(3) == "not finished" and "Moved… on that folder" in moved_row.toolTip(3)
    assert "Re-sync" not in moved_row.toolTip(3)


def test_the_counts_are_grouped_as_the_status_bar_groups_them(qtbot, panel):
    """The pane said "2025" and "2024" beside the status bar's "2,024 passages in 2,025 files" (the window newcomer)."""
    st = status_of(["/home/me/Documents", "/home/me/Mail"])
    st.roots[0].files, st.roots[0].chunks = 2025, 12024
    st.roots[1].files, st.roots[1].members = 1204, 1163
    panel.set_status(st)
    docs, mail = panel.tree.topLevelItem(0), panel.tree.topLevelItem(1)
    assert (docs.text(1), docs.text(2)) == ("2,025", "12,024")
    assert mail.text(1) == "1,204 + 1,163"
