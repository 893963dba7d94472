"""How the results list is laid out: compact rows of a fixed height, as a desktop search's result list.

Each row is two lines high: the file's name with its folder under it (shortened in the middle, as GNOME's and
KDE's file search do, so the drive and the last folders both show), then date, page, the snippet with the
query words marked (Recoll's shape: what matched, right there), and the score that ordered the list. The
snippet column takes whatever width is left, so the score is always on screen and there is never a horizontal
scroll bar. Everything painted here is plain text.
"""

from __future__ import annotations

import os

from PySide6.QtCore import QEvent, QModelIndex, QObject, QPersistentModelIndex, QRect, Qt
from PySide6.QtGui import QFontMetrics, QPainter, QPalette
from PySide6.QtWidgets import QHeaderView, QStyle, QStyledItemDelegate, QStyleOptionViewItem, QTableView

from ..base.member_paths import DISPLAY_SEP, split_member
from .name_first import cut_at_start
from .plain import shown_name
from .results_model import HIT_ROLE, SNIPPET_LINES, HtmlDelegate, ResultsModel

__all__ = ["FileDelegate", "setup_results_view", "fit_columns", "row_height", "short_folder", "folder_line", "marked_lines",
           "FILE_WIDTH"]

FILE_WIDTH = 230  # the name and folder column at most, until the person drags it
MIN_FILE_WIDTH = 160  # in a narrow window the snippet keeps the room
_COL = ResultsModel.COLUMNS.index
_FITTED = ("#", "Date", "Page", "More", "Score", "Rerank")  # as wide as their text, never cut


def short_folder(folder: str) -> str:
    """`~/Documents/…` for a folder in the home, as file managers write it: the width goes to the folders that
    tell files apart (the full path is the row's tooltip and the preview's header)."""
    home = os.path.expanduser("~").rstrip(os.sep)
    if home and home != "~" and (folder == home or folder.startswith(home + os.sep)):
        return "~" + folder[len(home):]
    return folder


def folder_line(folder: str, fm: QFontMetrics, width: int) -> str:
    """The folder as the row's second line: `~` for the home, shortened in the middle to `width` pixels."""
    return fm.elidedText(short_folder(folder), Qt.TextElideMode.ElideMiddle, width)


def name_lines(name: str, folder: str, fm: QFontMetrics, width: int, member: bool = True) -> tuple[str, str]:
    """The row's name and the grey line under it, in `width` pixels. A member too long for it gives way from its
    container's side, the container going down to the grey line (`› 11: Re: Security deposit…` over
    `~/mail/personal.mbox`): shortened in the middle, three messages of one mailbox all read `personal.mbox › 1…
    return - Flat 3B`. What is left of the member's own name keeps its start (a message's number and subject),
    or its extension (a file in an archive). `member`: the row is one (a file's own name may hold " › ")."""
    if fm.horizontalAdvance(name) <= width or not member or DISPLAY_SEP not in name:
        return fm.elidedText(name, Qt.TextElideMode.ElideMiddle, width), folder_line(folder, fm, width)
    container, own = name.rsplit(DISPLAY_SEP, 1)
    head = DISPLAY_SEP.lstrip()
    mode = Qt.TextElideMode.ElideMiddle if os.path.splitext(own)[1] else Qt.TextElideMode.ElideRight
    return (head + fm.elidedText(own, mode, max(0, width - fm.horizontalAdvance(head))),
            # cut at its start: the mailbox and the message an attachment is in tell it apart, not the folders
            cut_at_start(short_folder(os.path.join(folder, container) if folder else container), fm, width))


def marked_lines(name: str, bare: str, folder: str, fm: QFontMetrics, width: int, member: bool = True
                 ) -> tuple[str, str]:
    """name_lines of a File cell whose `name` is `bare` with marks after it ("  (unavailable)", "  (new)"): where
    the name fits alone but not with them, the name has its line and the marks open the grey line, before the folder.
    Cut in its middle with them, a result of a missing folder read "plan-120.m…available)" at 900×600."""
    mark = name[len(bare):].strip() if bare and len(name) > len(bare) and name.startswith(bare) else ""
    if mark and fm.horizontalAdvance(bare) <= width < fm.horizontalAdvance(name):
        room = width - fm.horizontalAdvance(mark + "  ")
        return bare, mark + ("  " + folder_line(folder, fm, room) if room >= fm.horizontalAdvance("…/…") else "")
    return name_lines(name, folder, fm, width, member)


def row_height(view: QTableView) -> int:
    return SNIPPET_LINES * view.fontMetrics().lineSpacing() + 8


class FileDelegate(QStyledItemDelegate):
    """The file's name on the first line and its folder in grey under it, each elided in the middle so the
    extension and the last folder stay visible (a member's name from its container's side: name_lines). Drawn as plain text: a name is never markup."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        name, opt.text = opt.text, ""
        style = opt.widget.style() if opt.widget else None
        if style:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        folder = str(index.sibling(index.row(), _COL("Folder")).data() or "")
        fm, r = opt.fontMetrics, opt.rect.adjusted(4, 3, -4, -3)
        line = fm.lineSpacing()
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        text = opt.palette.color(QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text)
        grey = opt.palette.color(QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.PlaceholderText)
        painter.save()
        painter.setFont(opt.font)
        painter.setPen(text)
        flags = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextSingleLine)
        hit = index.data(HIT_ROLE)
        member = hit is not None and split_member(hit.path)[1] is not None
        first, second = marked_lines(name, shown_name(hit.path) if hit is not None else "", folder, fm, r.width(),
                                     member)
        painter.drawText(QRect(r.left(), r.top(), r.width(), line), flags, first)
        painter.setPen(grey)
        painter.drawText(QRect(r.left(), r.top() + line, r.width(), line), flags, second)
        painter.restore()


class _FileWidth(QObject):
    """The name column takes a quarter of the list (MIN_FILE_WIDTH..FILE_WIDTH) as the window is resized, until
    the person drags it: from then on it keeps their width."""

    def __init__(self, view: QTableView) -> None:
        super().__init__(view)
        self.view, self.dragged, self._setting = view, False, False
        view.horizontalHeader().sectionResized.connect(self._resized)
        view.viewport().installEventFilter(self)

    def _resized(self, index: int, _old: int, _new: int) -> None:
        if index == _COL("File") and not self._setting:
            self.dragged = True

    def fit(self) -> None:
        if self.dragged:
            return
        self._setting = True
        width = max(MIN_FILE_WIDTH, min(FILE_WIDTH, self.view.viewport().width() // 4))
        self.view.setColumnWidth(_COL("File"), width)
        self._setting = False

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self.fit()
        return False


def setup_results_view(view: QTableView) -> None:
    """Delegates, fixed row height, and column sizing for a view whose model is a ResultsModel."""
    view.setItemDelegateForColumn(_COL("Passage"), HtmlDelegate(view))
    view.setItemDelegateForColumn(_COL("File"), FileDelegate(view))
    view.setColumnHidden(_COL("Folder"), True)  # drawn under the name; the column stays in the model for its text
    view.setWordWrap(True)  # the snippet wraps onto its second line
    view.setTextElideMode(Qt.TextElideMode.ElideMiddle)
    view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    vh = view.verticalHeader()
    vh.setVisible(False)
    vh.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
    vh.setDefaultSectionSize(row_height(view))
    hh = view.horizontalHeader()
    hh.setStretchLastSection(False)
    hh.setMinimumSectionSize(24)
    for name in _FITTED:
        hh.setSectionResizeMode(_COL(name), QHeaderView.ResizeMode.ResizeToContents)
    hh.setSectionResizeMode(_COL("File"), QHeaderView.ResizeMode.Interactive)
    hh.setSectionResizeMode(_COL("Passage"), QHeaderView.ResizeMode.Stretch)
    file_width = _FileWidth(view)  # kept alive with the view
    view.file_width = file_width  # type: ignore[attr-defined]
    file_width.fit()
    fit_columns(view)


def fit_columns(view: QTableView) -> None:
    """After new hits: More and Rerank only while some hit has something to show there."""
    model = view.model()
    hits = [model.index(r, 0).data(HIT_ROLE) for r in range(model.rowCount())]
    view.setColumnHidden(_COL("More"), not any(h.more or h.copies or h.near_copies or h.common_to for h in hits))
    view.setColumnHidden(_COL("Rerank"), not any(h.ranks.rerank is not None for h in hits))
