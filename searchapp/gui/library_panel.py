"""The indexed folders with their counts and last sync, the files that were not indexed, and the buttons to change them.

Remove asks first, naming each folder and how much of it is indexed: forgetting a large folder is one click, and
getting it back means indexing it again (hours for a home folder). A missing folder offers Moved… (its menu, and a
button while one is selected): a folder chooser for where it is now, then the library follows it there keeping its
meaning (library/sync/moved.py, decision 0157); removing it and adding the new place embedded everything again."""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Callable, Optional

from PySide6.QtCore import QDir, QEvent, QObject, QPoint, Qt, QUrl, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QFileDialog, QHBoxLayout, QHeaderView, QLabel, QMenu,
                               QMessageBox, QPushButton, QTableWidget, QTableWidgetItem, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget)

from ..base.types import Hit
from ..library import LibraryStatus
from ..base.plural import entry_counts
from ..library.report.status import by_rule_counts, cut_lines, folder_counts
from .elided_label import ElidedLabel
from .name_first import NAME_FIRST_ROLE, NameFirstDelegate
from .open_file import FileOpener
from .plain import plain_label, shown_path, tooltip
from .preview import folder_url
from .results_view import short_folder

if TYPE_CHECKING:
    from ..library import RootStatus

__all__ = ["LibraryPanel", "ProblemsDialog", "format_when", "remove_question", "MOVED_ACTION"]

MISSING_COLOR = QColor(176, 32, 32)
ELSEWHERE_COLOR = QColor(110, 110, 110)  # another machine's folder in a shared library: listed, not this one's


MOVED_ACTION = "Moved… (find where it is now)"
MOVED_TIP = ("Renamed or moved it, or its drive is mounted elsewhere? Choose where it is now: the library follows it "
             "there and keeps its meaning: only a file edited meanwhile is embedded again.")

CHECKED_TIP = ("When a sync last checked the folder's files against the disk and read the new and changed ones. "
               "Adding their meaning and reading scans (OCR) come after that, and can take longer.")


def name_first(path: str, mark: str = "", owner: str = "") -> tuple[str, str, str]:
    """(the folder's own name, the folder it is in, `mark`) as the pane shows them (name_first.py); `owner`:
    another machine's name, said after where the folder is ("/srv (desk-b's)", as a result of theirs says it):
    before its name, "alice-pc: alic…" was all a narrow pane showed of two of alice-pc's folders."""
    path = shown_path(path)  # a name that is not UTF-8 as guessed, controls escaped (decision 0179)
    trimmed = path.rstrip(os.sep) or path
    name = os.path.basename(trimmed)
    where = short_folder(os.path.dirname(trimmed)) if name else ""  # "/" or a drive: nothing above it
    whose = f"({owner}'s)" if owner else ""
    return name or path, f"{where} {whose}" if where and whose else where or whose, mark


def _order_key(path: str) -> tuple[str, str, str]:
    """Where a folder is listed: by its own name as the pane shows it first (name_first), case aside, then by where
    it is; the same whether it is being added, synced or done."""
    name, where, _ = name_first(path)
    return name.casefold(), path.casefold(), path


def format_when(ts: Optional[float], now: Optional[float] = None) -> str:
    """Short, as file managers write it ("14 min ago", "20:51" today, "2 Mar" this year, "2025-11-30"): a
    "2026-11-30 20:51" on every row took the room of the folders' names (the whole time is in the tooltip)."""
    if not ts:
        return "never"
    now = now or time.time()
    age = now - ts
    if age < 60:
        return "just now"
    if age < 3600:
        return f"{int(age // 60)} min ago"
    then, today = time.localtime(ts), time.localtime(now)
    if then[:3] == today[:3]:
        return time.strftime("%H:%M", then)
    if then.tm_year == today.tm_year:
        return f"{then.tm_mday} {time.strftime('%b', then)}"
    return time.strftime("%Y-%m-%d", then)


def remove_question(roots: list[RootStatus]) -> str:
    """What the Remove prompt asks about `roots` (RootStatus): each folder with its files and passages."""
    def one(r: RootStatus) -> str:
        return f"{shown_path(r.path)} ({folder_counts(r.files, r.members, r.chunks, grouped=True)})"

    what = one(roots[0]) if len(roots) == 1 else f"{len(roots)} folders:\n" + "\n".join(f"• {one(r)}" for r in roots)
    return (f"Remove {what} from the library?\n\n"
            "Everything indexed there is forgotten at once; the files themselves stay where they are. "
            "For a minute, Undo in the status bar puts the last folder removed back as it was; after that, adding "
            "it again means indexing it again from the start.")


def _files_cell(r: RootStatus, syncing: bool = False) -> str:
    """The Files column: the files on disk, and the members of their archives and mail beside them, "2561 + 163"
    (decision 0163; the cell's tooltip says what each is). While the folder syncs, "320 so far": the files
    searchable so far, saved in batches, which lag the strip's "Reading 497 of 3,000 files" (the files read); a
    bare "320" beside it read as the same count with another number (a newcomer, n7). Grouped as every other count
    of the window ("2,025"): "2025" beside the status bar's "2,025 files" read as another number."""
    return (f"{r.files:,} + {r.members:,}" if r.members else f"{r.files:,}") + (" so far" if syncing else "")


SO_FAR_TIP = ("\nSearchable so far: the sync saves what it reads in batches, so this lags the files the progress "
              "strip says it has read.")


def moves_stopped_note(old: str, new: str) -> tuple[str, str]:
    """The pane's line on a move from `old` to `new` stopped halfway (RootStatus.moving_from), by the folders' names
    as the rows show them (whole paths took five lines of a 340 px pane), and its tooltip, with the paths and
    `status`'s command."""
    a, b = name_first(old)[0], name_first(new)[0]
    return (f"Moving {a} to {b} stopped halfway: both are listed. To go on, select {a}, then Moved…, and choose "
            f"{b} again.",
            f"A move of {shown_path(old)} to {shown_path(new)} stopped halfway (a Cancel, or the window closed): "
            f"what was read of the new place is searchable, the old place is kept whole. Moved… on the old place, "
            f"choosing the new one, goes on, as `searchapp moved {shown_path(old)} {shown_path(new)}` does.")


def _folder_tip(r: RootStatus, moving_to: Optional[str]) -> str:
    """A folder's name cell's tooltip: its whole path; why it is missing, or half moved, and what to do."""
    tip = shown_path(r.path)
    if r.missing:
        tip += (f"\nMissing: {r.reason}\nIts passages are kept. Moved? Right-click: Moved… finds where it is now, "
                "keeping its meaning; Remove forgets it.")
    if moving_to is not None:
        tip += f"\nIts move to {shown_path(moving_to)} stopped halfway: Moved…, choosing that folder, goes on."
    if r.moving_from:
        tip += (f"\nA move here from {shown_path(r.moving_from)} stopped halfway: what was read of it so far is "
                "searchable; Moved… on that folder, choosing this one, goes on.")
    return tip


def _counts_tip(item: QTreeWidgetItem, r: RootStatus, syncing: bool = False) -> None:
    """The Files and Passages cells' tooltip: the folder's counts in words, as `searchapp status` gives them."""
    tip = tooltip(folder_counts(r.files, r.members, r.chunks, grouped=True)
                  + (" (each read out of an archive or a mail, found on its own)" if r.members else "")
                  + (SO_FAR_TIP if syncing else ""))
    for c in (1, 2):
        item.setToolTip(c, tip)


def _not_indexed(status: LibraryStatus) -> list[tuple[str, str, str]]:
    """The ledger's entries not (fully) indexed, OCR pending included; `failed` for a status made without it."""
    return status.not_indexed or status.failed


def problems_label(status: LibraryStatus) -> str:
    """The Not indexed button: the entries not indexed, files and members apart as the Files column writes them
    ("Not indexed: 56 + 173"; the tooltip and the list's note say which is which, as `status` does). While the sync
    running now has scans to read by OCR, those apart ("Not indexed: 3 · 12 waiting for OCR", or "12 waiting for
    OCR" alone): counted not indexed, a folder's scans read as failures a minute before its OCR step read them."""
    entries, members, waiting = status.not_indexed_counts()
    label = f"Not indexed: {entries - members:,} + {members:,}" if members else f"Not indexed: {entries:,}"
    if not waiting:
        return label
    return f"{label} · {waiting:,} waiting for OCR" if entries else f"{waiting:,} waiting for OCR"


def problems_note(status: LibraryStatus) -> str:
    """What the Not indexed list and its button's tooltip say of the counts, in `status`'s words: the entries not
    indexed, files and members apart; those left out on purpose, by rule (counted, not listed); the files the text
    caps cut (indexed, so no row, but a word past the cut is never found: `status` names them too)."""
    entries, members, waiting = status.not_indexed_counts()
    lines = [f"{entry_counts(entries, members, grouped=True)} not indexed"
             + (f"; left out on purpose: {by_rule_counts(status.left_out)}" if status.left_out else "")]
    if waiting:
        lines.append(f"{waiting:,} waiting for OCR, which the sync running now reads after the words: not counted "
                     "as not indexed unless it cannot read them")
    lines += cut_lines(status.cut, status.cut_count, status.chunks)
    return "\n".join(lines)


# The order of the list: what a person can act on first (a broken file to replace, a password to remove, a file
# left out for a reason), then files read that hold no text, then what will be read by itself (OCR still to come).
# Before, 47 "no text found" rows came first and the truncated PDFs and corrupt documents last.
STATE_ORDER = {"failed": 0, "skipped": 1, "no text found": 2, "waiting for OCR": 3}
# What "no text found" means when nothing more is known (an OCR'd image says so itself: report/not_indexed.py):
# said once, in the Reason column, rather than the state repeated there.
NO_TEXT_HINT = "read, but no words in it (empty, or only pictures or drawings)"
PATH_ROLE = Qt.ItemDataRole.UserRole + 2  # a row's file (a member's key), for Open and Show in folder


def problem_order(rows: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """`rows` (path, state in words, reason) in STATE_ORDER, each state's in the order given (by path)."""
    return sorted(rows, key=lambda row: STATE_ORDER.get(row[1], len(STATE_ORDER)))


def shown_reason(state: str, reason: str) -> str:
    return NO_TEXT_HINT if state == "no text found" and reason in ("", state) else reason


class ProblemsDialog(QDialog):
    """Files waiting for OCR, without text, skipped or failed, with the reason, those a person can act on first;
    Open and Show in folder for the selected one; non-modal so the user can keep searching. A row standing for a
    container's members ("N of its members: <reason>", report/not_indexed.py) lists them below it on a double
    click."""

    openRequested = Signal(QUrl)  # a not-indexed file (or its folder) for the desktop: the window's open_url

    def __init__(self, failed: list[tuple[str, str, str]], parent: Optional[QWidget] = None,
                 groups: Optional[dict[tuple[str, str, str], list[str]]] = None, note: str = "") -> None:
        super().__init__(parent)
        self.setWindowTitle("Files not indexed")
        self.setObjectName("problemsDialog")
        self.resize(760, 360)
        self.groups = groups or {}
        failed = problem_order(failed)
        table = QTableWidget(len(failed), 3)
        table.setObjectName("problemsTable")
        table.setHorizontalHeaderLabels(["File", "State", "Reason"])
        table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        table.setSelectionMode(QTableWidget.SelectionMode.SingleSelection)
        for i, (path, status, reason) in enumerate(failed):
            first = self._fill(table, i, (shown_path(path), status, shown_reason(status, reason)), path)
            if (path, status, reason) in self.groups:
                first.setData(Qt.ItemDataRole.UserRole, (path, status, reason))
        # The reason is what a person opened this for: the file column gives way so it is on screen, and a long
        # reason wraps onto more lines of its row in the width left (sized to its text, it ran off the window).
        table.resizeColumnToContents(0)
        table.resizeColumnToContents(1)
        table.setColumnWidth(0, min(table.columnWidth(0), 340))
        table.horizontalHeader().setStretchLastSection(True)
        table.setWordWrap(True)
        table.horizontalHeader().sectionResized.connect(lambda *_: table.resizeRowsToContents())
        table.cellDoubleClicked.connect(self._toggle)
        table.itemSelectionChanged.connect(self._selected)
        self.table = table
        lay = QVBoxLayout(self)
        # the counts in `status`'s words and the files the text caps cut (problems_note); plain text: paths
        self.note = QLabel(note)
        self.note.setObjectName("problemsNote")
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setWordWrap(True)
        self.note.setVisible(bool(note))
        lay.addWidget(self.note)
        lay.addWidget(table)
        lay.addLayout(self._buttons())
        self._selected()

    def _buttons(self) -> QHBoxLayout:
        """Open and Show in folder for the selected file (as the preview's: a member is copied out first), the
        line where an Open that failed says why, and Close."""
        self.open_button = QPushButton("Open")
        self.open_button.setObjectName("problemsOpen")
        self.folder_button = QPushButton("Show in folder")
        self.folder_button.setObjectName("problemsFolder")
        self.message = ElidedLabel("")
        self.message.setObjectName("problemsMessage")
        self.opener = FileOpener(self)
        self.opener.opened.connect(self.openRequested)
        self.opener.failed.connect(self.message.set_full_text)
        self.open_button.clicked.connect(lambda: self._open(False))
        self.folder_button.clicked.connect(lambda: self._open(True))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        row = QHBoxLayout()
        row.addWidget(self.open_button)
        row.addWidget(self.folder_button)
        row.addWidget(self.message, 1)
        row.addWidget(buttons)
        return row

    def selected_path(self) -> Optional[str]:
        items = self.table.selectedItems()
        row = items[0].row() if items else -1
        first = self.table.item(row, 0) if row >= 0 else None
        return first.data(PATH_ROLE) if first is not None else None

    def _selected(self) -> None:
        has = self.selected_path() is not None
        self.open_button.setEnabled(has)
        self.folder_button.setEnabled(has)
        self.message.set_full_text("")

    def _open(self, folder: bool) -> None:
        path = self.selected_path()
        if path is None:
            return
        hit = Hit(chunk_id=-1, path=path, page=None, start=0, end=0, text="")
        if folder:
            self.openRequested.emit(folder_url(hit))
        else:
            self.opener.open(hit)

    def open_failed(self, url: QUrl) -> None:
        """The desktop could not open what was asked (no application for its type): said beside the buttons."""
        self.message.set_full_text(f"Could not open {url.toLocalFile()}: no application opens it here; "
                                   "Show in folder shows it.")

    @staticmethod
    def _fill(table: QTableWidget, i: int, texts: tuple[str, str, str], path: str) -> QTableWidgetItem:
        """Row `i`'s cells for the file `path`; its first one."""
        items = [QTableWidgetItem(text) for text in texts]  # a member as `a.zip › m.pdf`, as elsewhere
        for j, item in enumerate(items):
            table.setItem(i, j, item)
            if j != 1:
                item.setToolTip(tooltip(item.text()))  # the whole text, never read as markup
        items[0].setData(PATH_ROLE, path)
        return items[0]

    def _toggle(self, row: int, _col: int = 0) -> None:
        """Show (or hide again) the members a grouped row stands for, one row each below it."""
        head, state = self.table.item(row, 0), self.table.item(row, 1)
        key = head.data(Qt.ItemDataRole.UserRole) if head is not None else None
        if not key or state is None:
            return
        members = self.groups[tuple(key)]
        below = self.table.item(row + 1, 0)  # None past the last row
        if below is not None and below.data(Qt.ItemDataRole.UserRole + 1):  # open: close it
            for _ in members:
                self.table.removeRow(row + 1)
            return
        for k, path in enumerate(members, start=1):
            self.table.insertRow(row + k)
            self._fill(self.table, row + k, ("    " + shown_path(path), state.text(), ""), path).setData(
                Qt.ItemDataRole.UserRole + 1, True)
        self.table.resizeRowsToContents()


MIN_NAME_PX = 110  # a folder's name column at least, before a count column gives way (_fit_columns)


class LibraryPanel(QWidget):
    addRequested = Signal(list)  # paths
    removeRequested = Signal(str)
    resyncRequested = Signal(object)  # list of root paths, or None for all
    movedRequested = Signal(str, str)  # (a missing folder, where it is now)
    openRequested = Signal(QUrl)  # a file of the Not indexed list, or its folder, for the desktop

    def __init__(self, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self.status: Optional[LibraryStatus] = None
        self.adding: list[str] = []  # the folders added and not done yet, listed before the status has them
        self._syncing: Optional[Callable[[str], bool]] = None
        self.problems_dialog: Optional[ProblemsDialog] = None
        self.remove_prompt: Optional[QMessageBox] = None
        self.folder_dialog: Optional[QFileDialog] = None  # the last Add Folder… (or Moved…) chooser
        self.menu: Optional[QMenu] = None  # the last folder's menu (right-click)
        self.tree = self._folder_tree()
        self.hint = QLabel("Drop folders or files here, or use Add Folder.")
        self.hint.setWordWrap(True)
        # A move (Moved…, `searchapp moved`) stopped halfway, as `status` says it: both places stand in the library
        # and nothing said why, nor how to go on (the command line did). Folder names: plain text.
        self.moves_note = plain_label("")
        self.moves_note.setObjectName("movesNote")
        self.moves_note.setWordWrap(True)
        self.moves_note.hide()
        self.add_button = QPushButton("Add Folder…")
        self.remove_button = QPushButton("Remove")
        self.resync_button = QPushButton("Re-sync")
        # Shown only while a folder is missing (most people never see it), enabled for one missing folder selected
        self.moved_button = QPushButton("Moved…")
        self.moved_button.setObjectName("movedButton")
        self.moved_button.setToolTip(tooltip(MOVED_TIP))
        self.moved_button.clicked.connect(lambda: self._ask_moved_selected())
        self.problems_button = QPushButton("Not indexed: 0")
        self.problems_button.setObjectName("problemsButton")
        self.problems_button.hide()  # until a file is not indexed (set_status)
        self.add_button.clicked.connect(self.ask_folder)
        self.remove_button.clicked.connect(self._remove_selected)
        self.resync_button.clicked.connect(lambda: self.resyncRequested.emit(self.selected_roots() or None))
        self.problems_button.clicked.connect(self.show_problems)
        row = QHBoxLayout()
        for b in (self.add_button, self.remove_button, self.resync_button):
            row.addWidget(b)
        # Moved… beside Not indexed, not in the row above: a fourth button there widened the whole pane (~290 to
        # 355 px) the moment a folder went missing, and the results beside it jumped (a newcomer)
        below = QHBoxLayout()
        below.addWidget(self.problems_button, 1)
        below.addWidget(self.moved_button)
        lay = self._lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        # Plain text (a shared library's address is the config's text), shortened to the pane's width.
        self.title = ElidedLabel("Library")
        self.title.setObjectName("libraryTitle")
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        lay.addWidget(self.title)
        lay.addWidget(self.tree, 1)
        lay.addWidget(self.hint)
        lay.addWidget(self.moves_note)
        lay.addLayout(row)
        lay.addLayout(below)
        self._update_buttons()

    def _folder_tree(self) -> QTreeWidget:
        """The folders of the library, one row each: name (and where it is), Files, Passages, Checked."""
        tree = QTreeWidget()
        tree.setObjectName("libraryView")
        tree.setAccessibleName("Indexed folders")
        # The time column is roots.last_sync, which the sync writes (store.touch_root) when a folder's words pass
        # ends: every file compared with the disk and the changed ones read. Their meaning (the embedding pass) and
        # the text of scans (the OCR step) come after it, for every folder of the sync together, so no time is
        # stored per folder for the end of a sync, and a 14-minute re-sync read "14 min ago" as it ended under
        # "Last sync". The value is right for what it is and nothing else reads it (the scan compares each file's
        # size, times and hash, never this time), so the window names it for what it is rather than the sync
        # moving when it writes it: "Checked", with what comes after in the tooltip.
        tree.setHeaderLabels(["Folder", "Files", "Passages", "Checked"])
        tree.headerItem().setToolTip(3, CHECKED_TIP)
        tree.setRootIsDecorated(False)
        tree.setSelectionMode(QTreeWidget.SelectionMode.ExtendedSelection)
        tree.itemSelectionChanged.connect(self._update_buttons)
        tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        tree.customContextMenuRequested.connect(self._show_menu)
        # The counts are always whole; a folder shows its own name, and under it where it is, cut in its middle by
        # whole folders (name_first.py): one line cut in the middle, "/tmp/s…n/home" had lost the name a person
        # knows it by, and beside the name, in the ~120 px the counts leave at 1280×800, two folders named "files"
        # both read "files /t…nc"; cut at its start, every folder under one long parent read "…omer-files".
        tree.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        tree.setItemDelegateForColumn(0, NameFirstDelegate(tree, below=True))
        tree.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        header = tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for c in (1, 2, 3):
            header.setSectionResizeMode(c, QHeaderView.ResizeMode.ResizeToContents)
        tree.viewport().installEventFilter(self)  # its width decides which counts fit (_fit_columns)
        return tree

    def add_below(self, widget: QWidget) -> None:
        """Another part of the pane (the saved searches), under the folders."""
        self._lay.addWidget(widget)

    def set_status(self, status: LibraryStatus, syncing: Optional[Callable[[str], bool]] = None) -> None:
        """`syncing(path)`: whether that folder is being synced now (its counts are those committed so far)."""
        self.status, self._syncing = status, syncing
        self._show()

    def show_adding(self, paths: list[str], syncing: Optional[Callable[[str], bool]] = None) -> None:
        """The folders added and not done yet (the one syncing first, then those waiting their turn)."""
        self.adding, self._syncing = list(paths), syncing
        self._show()

    def _show(self) -> None:
        status, syncing = self.status, self._syncing
        selected = set(self.selected_roots())
        self.tree.clear()
        rows: list[QTreeWidgetItem] = []
        halfway = {r.moving_from: r.path for r in status.roots if r.moving_from} if status is not None else {}
        for r in status.roots if status is not None else []:
            missing = r.missing
            mark = " (missing)" if missing else " (move stopped)" if r.moving_from else ""
            label = shown_path(r.path) + mark
            when = "syncing…" if syncing is not None and syncing(r.path) else format_when(r.last_sync)
            unfinished = not r.last_sync and r.files > 0 and when != "syncing…"
            if unfinished:  # "never" beside 46 searchable files read as nothing indexed (a cancelled first sync)
                when = "not finished"
            item = QTreeWidgetItem([label, _files_cell(r, when == "syncing…"), f"{r.chunks:,}", when])
            _counts_tip(item, r, when == "syncing…")
            item.setData(0, NAME_FIRST_ROLE, name_first(r.path, mark))
            if unfinished and r.moving_from:  # a Re-sync would read the rest and leave the old place beside it
                item.setToolTip(3, tooltip(f"Its move from {shown_path(r.moving_from)} was stopped before the end: "
                                           "what it read is searchable; Moved… on that folder, choosing this one, "
                                           "reads the rest and takes the old place out."))
            elif unfinished:
                item.setToolTip(3, tooltip("Its first sync was stopped before the end: what it read is searchable, "
                                           "Re-sync (F5) reads the rest."))
            elif r.last_sync:
                item.setToolTip(3, tooltip(f"Files checked {time.strftime('%Y-%m-%d %H:%M', time.localtime(r.last_sync))}"
                                           ". Adding their meaning and reading scans (OCR) come after that."))
            item.setData(0, Qt.ItemDataRole.UserRole, r.path)
            # A missing folder keeps its passages (searchable, marked unavailable) until it is removed.
            item.setToolTip(0, tooltip(_folder_tip(r, halfway.get(r.path))))
            if missing:
                item.setForeground(0, MISSING_COLOR)
            for c in (1, 2):
                item.setTextAlignment(c, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            rows.append(item)
        rows += self._adding_rows([r.path for r in status.roots] if status is not None else [])
        # One order before, during and after a sync: a folder being added was listed last until its first files were
        # committed, then jumped to its place in the status's order (by path) mid-sync (a newcomer's Archive2 went
        # from the bottom to the top). Every folder is listed by the name the pane shows first, A to Z.
        rows.sort(key=lambda it: _order_key(it.data(0, Qt.ItemDataRole.UserRole)))
        for item in rows:
            self.tree.addTopLevelItem(item)
            item.setSelected(item.data(0, Qt.ItemDataRole.UserRole) in selected and bool(
                item.flags() & Qt.ItemFlag.ItemIsSelectable))
        said = [moves_stopped_note(old, new) for old, new in halfway.items()]
        self.moves_note.setText("\n".join(line for line, _ in said))
        self.moves_note.setToolTip(tooltip("\n".join(tip for _, tip in said)))
        self.moves_note.setVisible(bool(halfway))
        if status is not None:
            self._show_shared(status)
            self.problems_button.setText(problems_label(status))
            self.problems_button.setToolTip(tooltip(problems_note(status)))
            # Shown once there is something to list: a first start's "Not indexed: 0" was a question with no answer
            self.problems_button.setVisible(bool(_not_indexed(status) or status.cut_count))
        self.hint.setVisible(not self.tree.topLevelItemCount())
        self._fit_columns()
        self._update_buttons()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt's name
        if watched is self.tree.viewport() and event.type() == QEvent.Type.Resize:
            self._fit_columns()
        return False

    def _fit_columns(self) -> None:
        """Checked, then Passages, give way where the pane leaves a folder's name less than MIN_NAME_PX beside them,
        and come back where there is room: at 900×600 the counts, sized to their contents, took the whole 262 px and
        every folder read "…" (the window newcomer). Files stays: it says what the folder holds."""
        room = self.tree.viewport().width()
        need = {c: max(self.tree.header().sectionSizeHint(c), self.tree.sizeHintForColumn(c)) for c in (1, 2, 3)}
        shown = [1, 2, 3]
        while len(shown) > 1 and room - sum(need[c] for c in shown) < MIN_NAME_PX:
            shown.pop()
        for c in (2, 3):
            if self.tree.isColumnHidden(c) == (c in shown):
                self.tree.setColumnHidden(c, c not in shown)

    def _adding_rows(self, roots: list[str]) -> list[QTreeWidgetItem]:
        """The folders added that the status does not list yet: a folder is one of the library's only once its
        first files are committed (11 s into a 2,000-file home), and until then the pane stayed empty."""
        rows = []
        for path in self.adding:
            if any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots):
                continue  # listed already, or synced as part of the indexed folder it is in
            running = self._syncing is not None and self._syncing(path)
            item = QTreeWidgetItem([path, "", "", "syncing…" if running else "waiting…"])
            item.setData(0, NAME_FIRST_ROLE, name_first(path))
            item.setData(0, Qt.ItemDataRole.UserRole, path)
            item.setFlags(Qt.ItemFlag.ItemIsEnabled)  # nothing indexed yet to remove or re-sync
            item.setToolTip(0, tooltip(f"{path}\n" + (
                "Being added: its files are being found and read; their counts show as the first ones are in."
                if running else "Added: it is read once the sync running now has ended.")))
            rows.append(item)
        return rows

    def _show_shared(self, status: LibraryStatus) -> None:
        """A shared library: its address in the title, and the other machines' folders, grey and not selectable
        (their machine syncs and removes them; their files are in the results here all the same)."""
        self.title.set_full_text(f"Shared library · {status.address}" if status.address else "Library")
        if status.address:
            self.title.setToolTip(tooltip(f"Every search and every folder added here goes to {status.address}; "
                                          "the folders of other machines are theirs to sync and remove"))
        for machine, r in status.elsewhere:
            item = QTreeWidgetItem([f"{machine}: {r.path}", _files_cell(r), f"{r.chunks:,}", format_when(r.last_sync)])
            _counts_tip(item, r)
            item.setData(0, NAME_FIRST_ROLE, name_first(r.path, owner=machine))
            item.setFlags(Qt.ItemFlag.ItemIsEnabled)  # never selected: Remove and Re-sync are that machine's
            item.setToolTip(0, tooltip(f"{r.path}\nA folder of {machine}: searched here too; {machine} syncs it "
                                       "and only it can remove it"))
            for c in range(4):
                item.setForeground(c, ELSEWHERE_COLOR)
            for c in (1, 2):
                item.setTextAlignment(c, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.tree.addTopLevelItem(item)

    def selected_roots(self) -> list[str]:
        return [it.data(0, Qt.ItemDataRole.UserRole) for it in self.tree.selectedItems()]

    def show_problems(self) -> ProblemsDialog:
        st = self.status
        self.problems_dialog = ProblemsDialog(_not_indexed(st) if st else [], self, st.member_groups if st else None,
                                              problems_note(st) if st else "")
        self.problems_dialog.openRequested.connect(self.openRequested)
        self.problems_dialog.show()
        return self.problems_dialog

    def _update_buttons(self) -> None:
        has = bool(self.selected_roots())
        self.moved_button.setVisible(bool(self.status and any(r.missing for r in self.status.roots)))
        self.moved_button.setEnabled(self._selected_missing() is not None)
        self.remove_button.setEnabled(has)
        self.resync_button.setEnabled(bool(self.status and self.status.roots))
        # the files cut by the text caps are said in its list's note: open it for them alone too
        self.problems_button.setEnabled(bool(self.status and (_not_indexed(self.status) or self.status.cut_count)))

    def ask_folder(self) -> QFileDialog:
        """Add Folder…: a folder chooser that opens in the home folder (not the folder the app was started in);
        the folder chosen is added."""
        dlg = QFileDialog(self, "Add a folder to the library", QDir.homePath())
        dlg.setObjectName("addFolderDialog")
        dlg.setFileMode(QFileDialog.FileMode.Directory)
        dlg.setOption(QFileDialog.Option.ShowDirsOnly, True)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dlg.fileSelected.connect(self._folder_chosen)
        dlg.open()
        self.folder_dialog = dlg
        return dlg

    def _folder_chosen(self, path: str) -> None:
        if path:
            self.addRequested.emit([path])

    def _missing(self, path: str) -> bool:
        return any(r.path == path and r.missing for r in (self.status.roots if self.status else []))

    def _selected_missing(self) -> Optional[str]:
        """The one folder selected when it is missing, else None (Moved… finds one folder at a time)."""
        paths = self.selected_roots()
        return paths[0] if len(paths) == 1 and self._missing(paths[0]) else None

    def folder_menu(self, path: str) -> QMenu:
        """A folder's menu: Moved… when it is missing, then Re-sync and Remove… as the buttons below do."""
        menu = QMenu(self.tree)
        menu.setObjectName("folderMenu")
        if self._missing(path):
            moved = menu.addAction(MOVED_ACTION)
            moved.setToolTip(MOVED_TIP)
            moved.triggered.connect(lambda: self.ask_moved(path))
            menu.setToolTipsVisible(True)
            menu.addSeparator()
        # the selection, as Remove… and the buttons act (the folder right-clicked is in it: _show_menu)
        menu.addAction("Re-sync").triggered.connect(lambda: self.resyncRequested.emit(self.selected_roots() or [path]))
        menu.addAction("Remove…").triggered.connect(self._remove_selected)
        return menu

    def _show_menu(self, pos: QPoint) -> None:
        item = self.tree.itemAt(pos)
        if item is None or not item.flags() & Qt.ItemFlag.ItemIsSelectable:  # being added, or another machine's
            return
        if not item.isSelected():  # the menu acts on the folder under the pointer, as file managers do
            self.tree.clearSelection()
            item.setSelected(True)
        self.menu = self.folder_menu(item.data(0, Qt.ItemDataRole.UserRole))
        self.menu.popup(self.tree.viewport().mapToGlobal(pos))

    def _ask_moved_selected(self) -> Optional[QFileDialog]:
        path = self._selected_missing()
        return self.ask_moved(path) if path is not None else None

    def ask_moved(self, old: str) -> QFileDialog:
        """Moved…: a folder chooser for where the missing folder `old` is now, opening where it was (or the nearest
        folder above that is still there); the folder chosen goes to movedRequested with `old`."""
        start = os.path.dirname(old.rstrip(os.sep))
        while start and not os.path.isdir(start) and os.path.dirname(start) != start:
            start = os.path.dirname(start)
        name = os.path.basename(old.rstrip(os.sep)) or old
        dlg = QFileDialog(self, f"Where is {name} now?", start if os.path.isdir(start) else QDir.homePath())
        dlg.setObjectName("movedDialog")
        dlg.setFileMode(QFileDialog.FileMode.Directory)
        dlg.setOption(QFileDialog.Option.ShowDirsOnly, True)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        halfway = next((r.path for r in (self.status.roots if self.status else []) if r.moving_from == old), None)
        if halfway is not None:  # its move stopped halfway: the place it was going to, chosen already
            dlg.setDirectory(os.path.dirname(halfway.rstrip(os.sep)) or halfway)
            dlg.selectFile(halfway)
        dlg.fileSelected.connect(lambda new: self.movedRequested.emit(old, new) if new else None)
        dlg.open()
        self.folder_dialog = dlg
        return dlg

    def _remove_selected(self) -> QMessageBox | None:
        """Ask before removing the selected folders (window-modal, Cancel the default); Remove removes them."""
        paths = self.selected_roots()
        roots = [r for r in (self.status.roots if self.status else []) if r.path in paths]
        if not roots:
            return None
        box = QMessageBox(QMessageBox.Icon.Warning, "Remove from library", "", QMessageBox.StandardButton.Cancel, self)
        box.setObjectName("removePrompt")
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)  # each Remove asks afresh; none piles up
        box.setTextFormat(Qt.TextFormat.PlainText)  # folder names are a person's text
        box.setText(remove_question(roots))
        remove = box.addButton("Remove", QMessageBox.ButtonRole.DestructiveRole)
        remove.setObjectName("removeConfirm")
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)  # Enter keeps the index; removing takes a click
        box.setEscapeButton(QMessageBox.StandardButton.Cancel)
        remove.clicked.connect(lambda: self._remove([r.path for r in roots]))
        box.open()
        self.remove_prompt = box
        return box

    def _remove(self, paths: list[str]) -> None:
        for path in paths:
            self.removeRequested.emit(path)
