"""The Duplicates window: exact copies and near duplicates, with the matching passages side by side.

It only shows a DuplicateReport; the main window runs `Library.duplicates` on its job pool and hands
the report over. Open / Show in folder go back through the main window's opener (indexed paths only).
"""

from __future__ import annotations

import html
import os
from typing import Callable, Optional

from PySide6.QtCore import QUrl, Qt, Signal
from PySide6.QtWidgets import (QDoubleSpinBox, QGridLayout, QHBoxLayout, QLabel, QPushButton, QSplitter, QTextBrowser,
                               QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget)

from ..base.page_names import page_label
from ..base.plural import counted
from ..base.types import Hit
from ..library import DuplicateReport, NearGroup, NearPair, PassagePair
from ..library.search.duplicates import CAUTION
from .copy_names import group_name, original_first
from .name_first import NAME_FIRST_ROLE, NameFirstDelegate
from .plain import plain_label, shown_folder, shown_name, shown_path, tooltip
from .open_failure import OpenFailure
from .open_file import FileOpener
from .preview import PASSAGE_STYLE, folder_url

__all__ = ["DuplicatesWindow", "told_apart"]

ITEM_ROLE = Qt.ItemDataRole.UserRole + 1
NOTE_ROLE = Qt.ItemDataRole.UserRole + 2  # what the pair shown is, said above it (a group's weakest pair, ...)


def told_apart(paths: list[str]) -> list[str]:
    """Where each of `paths` (copies of one file) is, from the folder they all share: that folder's own name and
    what is below it ("home/Documents/Papers", "home/Backup old"), the part that tells them apart; the whole
    folder when they share none (two drives)."""
    folders = [shown_folder(p) for p in paths]
    try:
        base = os.path.dirname(os.path.commonpath(folders))  # above the shared folder: its name stays shown
    except ValueError:  # on two drives, or not all absolute
        return folders
    return [os.path.relpath(f, base) if base else f for f in folders]


def _hit(path: str, page: Optional[int] = None) -> Hit:
    return Hit(chunk_id=-1, path=path, page=page, start=0, end=0, text="")


class _Side(QWidget):
    """One side of a pair: its path, Open and Show in folder, and its matching passages."""

    openRequested = Signal(QUrl)

    def __init__(self, name: str) -> None:
        super().__init__()
        self.path: Optional[str] = None
        self.page: Optional[int] = None
        self.title = plain_label("")  # a path: never markup
        self.title.setObjectName(f"dup{name}Title")
        self.title.setWordWrap(True)
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.open_button = QPushButton("Open")
        self.open_button.setObjectName(f"dup{name}Open")
        self.folder_button = QPushButton("Show in folder")
        self.folder_button.setObjectName(f"dup{name}Folder")
        self.opener = FileOpener(self)  # a member is copied out of its container on a worker
        self.opener.opened.connect(self.openRequested)
        self.opener.busy.connect(self._opening)
        self.opener.failed.connect(lambda message: self.title.setText(self.title.text() + f"  ({message})"))
        self.open_button.clicked.connect(lambda: self.path and self.opener.open(_hit(self.path, self.page)))
        self.folder_button.clicked.connect(lambda: self.path and self.openRequested.emit(folder_url(_hit(self.path))))
        self.browser = QTextBrowser()
        self.browser.setObjectName(f"dup{name}Passages")
        self.browser.setOpenLinks(False)
        self.browser.setOpenExternalLinks(False)
        buttons = QHBoxLayout()
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.folder_button)
        buttons.addStretch(1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.title)
        lay.addLayout(buttons)
        lay.addWidget(self.browser, 1)
        self.show_file(None, [])


    def _opening(self, busy: bool) -> None:
        self.open_button.setEnabled(not busy)
        self.open_button.setText("Opening…" if busy else "Open")
    def show_file(self, path: Optional[str], passages: list[tuple[float, str, Optional[int]]]) -> None:
        self.path = path
        self.page = passages[0][2] if passages else None
        self.title.setText(f"{shown_name(path)}\n{shown_folder(path)}" if path else "")
        self.title.setToolTip(tooltip(shown_path(path or "")))
        self.open_button.setEnabled(bool(path))
        self.folder_button.setEnabled(bool(path))
        blocks = []
        for n, (sim, text, page) in enumerate(passages, start=1):
            where = f", {page_label(path or '', page)}" if page else ""
            blocks.append(f"<p><b>#{n}</b> <small>cosine {sim:.3f}{where}</small><br>"
                          f'<span style="{PASSAGE_STYLE}white-space:pre-wrap;">{html.escape(text)}</span></p>')
        self.browser.setHtml("".join(blocks))


class DuplicatesWindow(QWidget):
    openRequested = Signal(QUrl)
    refreshRequested = Signal(float)  # the threshold to search with

    def __init__(self, threshold: float, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setWindowTitle("Duplicates — searchapp")
        self.setObjectName("duplicatesWindow")
        self.report: Optional[DuplicateReport] = None
        self.threshold = QDoubleSpinBox()
        self.threshold.setObjectName("dupThreshold")
        self.threshold.setRange(0.5, 1.0)
        self.threshold.setSingleStep(0.01)
        self.threshold.setDecimals(2)
        self.threshold.setValue(threshold)
        self.threshold.setToolTip("Two files are near duplicates when, both ways, their passages match this well "
                                  "on average (cosine of the best-matching passage)")
        self.refresh_button = QPushButton("Find duplicates")
        self.refresh_button.setObjectName("dupRefresh")
        self.refresh_button.clicked.connect(lambda: self.refreshRequested.emit(self.threshold.value()))
        self.summary = plain_label("")
        self.summary.setObjectName("dupSummary")
        self.summary.setWordWrap(True)  # the caution on a near pair that may be two documents is a long sentence
        top = QHBoxLayout()
        top.addWidget(QLabel("Near-duplicate threshold:"))
        top.addWidget(self.threshold)
        top.addWidget(self.refresh_button)
        top.addWidget(self.summary, 1)

        self.tree = QTreeWidget()
        self.tree.setObjectName("dupTree")
        self.tree.setHeaderLabels(["Files", "Similarity"])
        # a group's pairs sit three levels deep: "a.docx  ≈  b.docx" still reads; the similarity beside it whole
        # ("<0.80–0.958" was cut at 1280x800: the tree's part of the window left it 76 px)
        self.tree.setColumnWidth(0, 310)
        # Copies often share their name and differ by their folder: each shows its name, then where it is from
        # the folder they share (told_apart), greyed, its last folders kept when it must be cut ("…/Backup old");
        # cut in the middle, three copies read alike ("/tmp/s17/win/ho…/bug1868759.p"). The whole path is the
        # item's text and tooltip.
        self.tree.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.tree.setItemDelegateForColumn(0, NameFirstDelegate(self.tree, Qt.TextElideMode.ElideLeft))
        self.tree.currentItemChanged.connect(self._selected)
        self.side_a, self.side_b = _Side("A"), _Side("B")
        for side in (self.side_a, self.side_b):
            side.openRequested.connect(self.openRequested)
        pair = QWidget()
        grid = QGridLayout(pair)
        grid.setContentsMargins(0, 0, 0, 0)
        self.note = plain_label("")  # names in it: never markup
        self.note.setObjectName("dupNote")
        self.note.setWordWrap(True)
        grid.addWidget(self.note, 0, 0, 1, 2)
        grid.addWidget(self.side_a, 1, 0)
        grid.addWidget(self.side_b, 1, 1)
        grid.setRowStretch(1, 1)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.tree)
        split.addWidget(pair)
        split.setSizes([430, 770])
        self.failure = OpenFailure()  # the desktop could not open a file: Show in folder, Copy path
        self.failure.folderRequested.connect(self.openRequested)
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(self.failure)
        lay.addWidget(split, 1)
        self.resize(1200, 640)

    def open_failed(self, url: QUrl) -> None:
        self.failure.show_for(url)

    def set_busy(self) -> None:
        self.refresh_button.setEnabled(False)
        self.summary.setText("Looking for duplicates…")

    def set_report(self, report: DuplicateReport) -> None:
        self.report = report
        self.refresh_button.setEnabled(True)
        near_groups = report.near_groups
        groups = _count(len(report.exact), "group")
        self.summary.setText(f"{groups} of exact copies, {_count(len(near_groups), 'group')} of near duplicates "
                             f"({_count(len(report.near), 'pair')}, threshold {report.threshold:.2f})"
                             + (f"; {report.caution}" if report.caution else ""))
        self.tree.clear()
        exact = QTreeWidgetItem(self.tree, [f"Exact copies ({groups})", ""])
        for group in report.exact:
            group = original_first(group)  # named after the original, which is shown first
            g = QTreeWidgetItem(exact, [f"{len(group)} × {group_name(group)}", "1.000"])
            g.setData(0, ITEM_ROLE, group)
            self._add_files(g, group, lambda path: ([path], ""))
        near = QTreeWidgetItem(self.tree, [f"Near duplicates ({_count(len(near_groups), 'group')})", ""])
        for ng in near_groups:
            self._add_near_group(near, ng, report)
        self.tree.expandToDepth(1)  # each group's files; the pairs inside a group of three or more stay folded
        first = near.child(0) or (exact.child(0) if exact.childCount() else None)
        if first is not None:
            self.tree.setCurrentItem(first)
        else:
            self._show(None)

    def _add_files(self, parent: QTreeWidgetItem, paths: list[str],
                   shown: Callable[[str], tuple[object, str]]) -> None:
        """Each of a group's `paths` under `parent`: its name, then where it is from the folder they share; `shown`
        gives what selecting it shows, and the note said above."""
        for path, where in zip(paths, told_apart(paths), strict=True):
            item = QTreeWidgetItem(parent, [shown_path(path), ""])
            what, note = shown(path)
            item.setData(0, ITEM_ROLE, what)
            item.setData(0, NOTE_ROLE, note)
            mark = _mark(self.report, path)
            item.setData(0, NAME_FIRST_ROLE, (shown_name(path) + mark, where))
            item.setToolTip(0, tooltip(shown_path(path) + mark))

    def _add_near_group(self, parent: QTreeWidgetItem, group: NearGroup, report: DuplicateReport) -> None:
        """A group of near duplicates: its files (one selected: it beside its nearest in the group), the lowest and
        highest similarity inside it, and, from three files on, its near pairs folded under it. The group
        selected shows its weakest pair, the one to compare first (decision 0186)."""
        pairs = [report.near[i] for i in group.near]
        weakest = report.near[group.weakest]
        paths = original_first(group.paths)
        note = _group_note(group, weakest, report.threshold)
        if len(paths) == 2:  # one pair: its row as before groups
            label, span = f"{shown_name(weakest.a)}  ≈  {shown_name(weakest.b)}", f"{weakest.similarity:.3f}"
            tip = f"{shown_path(weakest.a)}\n{shown_path(weakest.b)}"
        else:
            label, span, tip = f"{len(paths)} files ≈ {group_name(paths)}", _span(group, report.threshold), note
        item = QTreeWidgetItem(parent, [label, span])
        item.setToolTip(0, tooltip(tip))
        item.setToolTip(1, tooltip(note))
        item.setData(0, ITEM_ROLE, weakest)
        item.setData(0, NOTE_ROLE, note)

        def nearest(path: str) -> tuple[object, str]:
            best = _facing(max((p for p in pairs if path in (p.a, p.b)), key=lambda p: p.similarity), path)
            return best, (f"{shown_name(path)} beside its nearest file in the group ({best.similarity:.3f})"
                          if len(paths) > 2 else note)

        self._add_files(item, paths, nearest)
        if len(paths) > 2:
            inside = QTreeWidgetItem(item, [f"Near pairs inside ({len(pairs)})", ""])
            for p in pairs:
                pair = QTreeWidgetItem(inside, [f"{shown_name(p.a)}  ≈  {shown_name(p.b)}", f"{p.similarity:.3f}"])
                pair.setToolTip(0, tooltip(f"{shown_path(p.a)}\n{shown_path(p.b)}"))  # Qt would guess whether two file names are markup
                pair.setData(0, ITEM_ROLE, p)

    def _selected(self, current: Optional[QTreeWidgetItem], _previous: Optional[QTreeWidgetItem] = None) -> None:
        self._show(current.data(0, ITEM_ROLE) if current is not None else None)
        self.note.setText((current.data(0, NOTE_ROLE) if current is not None else None) or "")

    def _show(self, what: object) -> None:  # a NearPair, an exact group's paths, or None
        if isinstance(what, NearPair):
            self.side_a.show_file(what.a, [(q.similarity, q.a_text, q.a_page) for q in what.pairs])
            self.side_b.show_file(what.b, [(q.similarity, q.b_text, q.b_page) for q in what.pairs])
        elif isinstance(what, list) and what:  # an exact group (or one file of it): identical bytes
            self.side_a.show_file(what[0], [])
            self.side_b.show_file(what[1] if len(what) > 1 else None, [])
            if len(what) > 1:  # nothing to set side by side: say why the passages are not shown
                same = "Byte for byte the same file as the other one: nothing differs to show."
                self.side_a.browser.setPlainText(same)
                self.side_b.browser.setPlainText(same)
        else:
            self.side_a.show_file(None, [])
            self.side_b.show_file(None, [])

    def selected_pair(self) -> Optional[NearPair]:
        item = self.tree.currentItem()
        what = item.data(0, ITEM_ROLE) if item is not None else None
        return what if isinstance(what, NearPair) else None


def _count(n: int, noun: str) -> str:
    return counted(n, noun, grouped=True)  # "28,329 pairs", as the window writes numbers


def _span(group: NearGroup, threshold: float) -> str:
    """The lowest and highest similarity inside a group: below the threshold when two of its files are not near."""
    low = f"<{threshold:.2f}" if group.not_near else f"{group.lowest:.3f}"
    high = f"{group.highest:.3f}"
    return high if low == high else f"{low}–{high}"  # "0.996–0.996" read as a range that is none


def _group_note(group: NearGroup, weakest: NearPair, threshold: float) -> str:
    """What a group says when selected (and on hover): the pair shown is its weakest, which of its files are
    linked only through others, and the caution (a group of two: only the caution, when it carries one)."""
    n = len(group.paths)
    lines = [] if n == 2 else [
        f"{n} files linked by {_count(len(group.near), 'near pair')}, similarity {_span(group, threshold)}. "
        f"Shown: the weakest pair ({weakest.similarity:.3f}), to compare first."]
    if group.apart:
        a, b, steps = group.apart
        lines.append(f"Not every two are near duplicates: {shown_name(a)} and {shown_name(b)} are linked only "
                     f"through {_count(steps - 1, 'other file')} ({group.not_near} of {n * (n - 1) // 2} pairs of "
                     "files are not near duplicates).")
    if group.caution:
        lines.append(CAUTION[0].upper() + CAUTION[1:] + ".")
    return "\n".join(lines)


def _facing(pair: NearPair, path: str) -> NearPair:
    """`pair` with `path` as its first file, so the file selected is shown on the left."""
    if pair.a == path:
        return pair
    return NearPair(pair.b, pair.a, pair.similarity,
                    [PassagePair(q.similarity, q.b_text, q.a_text, q.b_page, q.a_page) for q in pair.pairs])


def _mark(report: Optional[DuplicateReport], path: str) -> str:
    """"  (desk-a's)", "  (desk-a's, unavailable here)", "  (unavailable)" or "": a file of a shared library's report
    marked as the results list marks a row (results_model.ResultsModel._file)."""
    if report is None:
        return ""
    theirs = report.whose.get(path)
    mark = (f"{theirs}'s" if theirs else "") + ("" if path not in report.unavailable else
                                                (", unavailable here" if theirs else "unavailable"))
    return f"  ({mark})" if mark else ""
