"""A list cell that shows a folder's or a file's own name first, then, greyed, where it is: a person knows a
folder by its name ("home", "notes"), and cut in the middle a long path kept its start and lost the name
("/tmp/s…n/home"). The name is cut last, only when the cell cannot hold it alone; the place gives way first.
In a narrow list (the library pane) the place goes on a line of its own under the name, cut in its middle by whole
folders: its first folder and its last ones ("/tmp/…/searchapp-sync" and "/tmp/…/searchapp-async" for two folders
named "files"), where one line beside the name left "files /t…nc". Cut at its start, every folder under one long
parent read "…omer-files" alike and said nothing of where it is (a newcomer's pane); its tooltip has it whole.

The item's text stays the whole path (what is read aloud, copied, compared); the cell's (name, where) is set
beside it in NAME_FIRST_ROLE, with a mark that is never cut ("(missing)"; in the pane, on the line below where the
name fits only without it). Painted as plain text: a name is never markup."""

from __future__ import annotations

from typing import Optional

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QFontMetrics, QPainter, QPalette
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

__all__ = ["NAME_FIRST_ROLE", "NameFirstDelegate", "fit_name_first", "fit_below", "cut_at_start", "cut_in_middle"]

NAME_FIRST_ROLE = Qt.ItemDataRole.UserRole + 7  # (name, where[, mark]), or None for a cell painted as usual
GAP = "   "  # between the name and where it is
PAD = 4  # the cell's inner margin, as the style's own


def fit_name_first(name: str, where: str, fm: QFontMetrics, width: int, mark: str = "",
                   cut: Qt.TextElideMode = Qt.TextElideMode.ElideMiddle) -> tuple[str, str]:
    """(name and mark, where) as they fit in `width` pixels: the name whole while it fits (then cut at its end,
    its mark kept), where it is in what is left, shortened by `cut` (in the middle: its start and its last folder
    show), or left out when even "…/…" has no room."""
    shown = fm.elidedText(name, Qt.TextElideMode.ElideRight, max(0, width - fm.horizontalAdvance(mark))) + mark
    room = width - fm.horizontalAdvance(shown + GAP)
    if shown != name + mark or not where or room < fm.horizontalAdvance("…/…"):
        return shown, ""
    return shown, fm.elidedText(where, cut, room)


def cut_at_start(where: str, fm: QFontMetrics, width: int) -> str:
    """`where` in `width` pixels, cut at its start: whole when it fits, else "…" and as many of its last folders
    as fit ("…/Clients/Acme Corporation"), else its end to the letter. A person tells two places apart by the
    folders nearest the name; their common start ("/home/me/Documents") seldom does."""
    if fm.horizontalAdvance(where) <= width:
        return where
    for i, ch in enumerate(where):  # the first separator that leaves a tail that fits keeps the most folders
        if ch in "/\\" and fm.horizontalAdvance("…" + where[i:]) <= width:
            return "…" + where[i:]
    return fm.elidedText(where, Qt.TextElideMode.ElideLeft, width)


def cut_in_middle(where: str, fm: QFontMetrics, width: int) -> str:
    """`where` in `width` pixels, cut in its middle: whole when it fits, else its first folder, "…" and as many of
    its last folders as fit ("/home/…/Clients/Acme"), else "…" and its last folder whole ("…/searchapp-sync"),
    else its start and its end to the letter ("/wor…er-files"). The end tells two places apart, the start which
    disk or home they are on; a whole folder's name reads better than the start and the end of two."""
    if fm.horizontalAdvance(where) <= width:
        return where
    seps = [i for i, ch in enumerate(where) if ch in "/\\"]
    first = next((i for i in seps if i > 0), None)  # the end of the first folder ("/home", "~", "C:")
    if first is not None:
        for i in (i for i in seps if i > first + 1):  # the tail with the most folders that fits
            cut = where[:first + 1] + "…" + where[i:]
            if fm.horizontalAdvance(cut) <= width:
                return cut
    last = where[seps[-1]:] if seps and seps[-1] > 0 else ""
    if last and fm.horizontalAdvance("…" + last) <= width:
        return "…" + last
    return fm.elidedText(where, Qt.TextElideMode.ElideMiddle, width)


def fit_below(name: str, where: str, fm: QFontMetrics, width: int, mark: str = "") -> tuple[str, str]:
    """(name and mark, where) for two lines of `width` pixels: each has the whole width, so the name is cut only
    when it alone is wider (at its end, its mark kept), and where it is keeps its start and its end
    (cut_in_middle). A name that fits alone but not with its mark has the line to itself, its mark opening the line
    below: "Work … (move stopped)" and "Work p… (missing)" had lost the name a person knows the folder by."""
    if mark and fm.horizontalAdvance(name) <= width < fm.horizontalAdvance(name + mark):
        mark = mark.strip()
        room = width - fm.horizontalAdvance(mark + GAP)
        return name, mark + (GAP + cut_in_middle(where, fm, room) if where and room >= fm.horizontalAdvance("…/…")
                             else "")
    shown = fm.elidedText(name, Qt.TextElideMode.ElideRight, max(0, width - fm.horizontalAdvance(mark))) + mark
    return shown, cut_in_middle(where, fm, width) if where else ""


class NameFirstDelegate(QStyledItemDelegate):
    """Paints a cell that has NAME_FIRST_ROLE as its name, then where it is in grey, shortened by `cut`, or with
    `below`, on a second line cut in its middle (fit_below); any other cell as usual."""

    def __init__(self, parent: Optional[QObject] = None, cut: Qt.TextElideMode = Qt.TextElideMode.ElideMiddle,
                 below: bool = False) -> None:
        super().__init__(parent)
        self.cut = cut
        self.below = below

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        size = super().sizeHint(option, index)
        if self.below and index.data(NAME_FIRST_ROLE):  # two lines, and the style's margin above and below
            size.setHeight(max(size.height(), 2 * option.fontMetrics.lineSpacing() + PAD))
        return size

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> None:
        parts: Optional[tuple[str, ...]] = index.data(NAME_FIRST_ROLE)
        if not parts:
            super().paint(painter, option, index)
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        style = opt.widget.style() if opt.widget else None
        if style:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        r = opt.rect.adjusted(PAD, 0, -PAD, 0)
        fm = opt.fontMetrics
        mark = parts[2] if len(parts) > 2 else ""
        name, where = (fit_below(parts[0], parts[1], fm, r.width(), mark) if self.below
                       else fit_name_first(parts[0], parts[1], fm, r.width(), mark, self.cut))
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        # The item's own colour (a missing folder's red, another machine's grey) comes in the palette's Text.
        text = opt.palette.color(QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text)
        grey = opt.palette.color(QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.PlaceholderText)
        flags = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextSingleLine)
        painter.save()
        painter.setFont(opt.font)
        painter.setPen(text)
        line, left = r, fm.horizontalAdvance(name + GAP)
        if self.below:  # the name on the upper half, where it is on the lower
            line, left = QRect(r.left(), r.top(), r.width(), r.height() // 2), 0
        painter.drawText(line, flags, name)
        if where:
            painter.setPen(grey)
            top = line.bottom() + 1 if self.below else r.top()
            painter.drawText(QRect(r.left() + left, top, r.width() - left, r.bottom() + 1 - top), flags, where)
        painter.restore()
