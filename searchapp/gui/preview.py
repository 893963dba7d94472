"""The selected passage in the context of its file, and the two ways out of the app: Open file, Show in folder.

Security: the preview is plain text made into HTML by escaping it; links in a document are never
followed, and the only URLs handed to the system are local file URLs built from indexed paths. The
title (a path) is a plain-text label. Cost: only a bounded window around the passage is laid out
(layout time grows faster than linearly with a line's length), and the same content is not laid out twice.
Open file on a member of a container copies it out on a worker (open_file.py), the button busy meanwhile.
"""

from __future__ import annotations

import html
import os
from typing import Optional

from PySide6.QtCore import QPoint, Qt, QUrl, Signal
from PySide6.QtGui import QFontMetrics, QResizeEvent
from PySide6.QtWidgets import QGridLayout, QPushButton, QTextBrowser, QVBoxLayout, QWidget

from ..base.member_paths import container_of, split_member
from ..base.page_names import page_label
from ..base.types import Hit
from ..library.file_kinds import is_code
from ..library.members.private_copy import open_copy
from .elided_label import ElidedLabel
from .highlight import MARK_STYLE, highlight_html
from .name_first import cut_in_middle
from .open_failure import OpenFailure
from .open_file import FileOpener, disk_url, local_url
from .plain import shown_path, tooltip

__all__ = ["PreviewPane", "file_url", "folder_url", "context_html", "PASSAGE_STYLE"]

PASSAGE_STYLE = "background-color:#d8ecff;"
CODE_FONT = "font-family:'DejaVu Sans Mono','Menlo','Consolas','Courier New',monospace;"
CONTEXT_CHARS = 4000  # shown on each side of the passage; enough context, cheap to lay out
PASSAGE_CHARS = 20_000  # of the passage itself (passages are capped when indexed; older ones may be longer)


def file_url(hit: Hit) -> QUrl:
    """The local file; a member of a container is first copied alone to a private temporary folder
    (library/members/private_copy.py). Blocks while it reads the container: the window opens through a
    FileOpener (open_file.py), which does that on a worker."""
    local = str(open_copy(hit.path)) if split_member(hit.path)[1] is not None else os.path.abspath(hit.path)
    return local_url(hit, local)


def folder_url(hit: Hit) -> QUrl:
    return disk_url(os.path.dirname(os.path.abspath(container_of(hit.path))))  # a member: its container's


def context_html(text: str, start: int, end: int, terms: list[str], code: bool = False) -> str:
    """`text` around [start, end) with the passage shaded and query words marked inside it; `code`: in a
    fixed-width font (source code, data, logs: a proportional font loses their indentation's columns)."""
    a, b = max(0, start - CONTEXT_CHARS), min(len(text), end + CONTEXT_CHARS)
    before, passage, after = text[a:start], text[start:end], text[end:b]
    if len(passage) > PASSAGE_CHARS:
        passage, after, b = passage[:PASSAGE_CHARS] + "…", "", len(text)
    body = (("…" if a else "") + html.escape(before)
            + f'<a name="passage"></a><span style="{PASSAGE_STYLE}">{highlight_html(passage, terms, MARK_STYLE)}</span>'
            + html.escape(after) + ("…" if b < len(text) else ""))
    return f'<div style="white-space:pre-wrap;{CODE_FONT if code else ""}">{body}</div>'


EMPTY_TITLE = "Select a result to see it in its file."
NARROW_PX = 600  # a preview narrower than this has its title on a line of its own, the buttons under it


class TitleLine(ElidedLabel):
    """The file's path, page and note on one line: where it is too long, its folders are shortened in the middle
    first (by whole folders: name_first.cut_in_middle), then the note and the page give way, and a name too long
    for the line alone is cut in its middle, so its start and its extension both show. Wrapped beside the score
    inspector (a third of the width), "/tmp/nc/home/ Documents/ Presentations/ …" took five lines of the preview's
    height; cut at its end, a long name lost its ".md" ("…Final agreement between … installation a…", a newcomer).
    The whole line is in the tooltip."""

    def __init__(self, text: str = "") -> None:
        self._folder = ""  # the leading part of the text that is shortened first (the path's folders)
        self._name = ""  # the file's name after it: kept longest, cut in its middle only when alone too long
        super().__init__(text)

    def set_line(self, folder: str, name: str, after: str = "") -> None:
        """`folder` + `name` + `after` (the page and a note) on one line."""
        self._folder, self._name = folder, name
        self.set_full_text(folder + name + after)

    def append(self, more: str) -> None:
        """`more` after the line's note (why an Open failed), the folders still shortened first."""
        self.set_full_text(self.full_text() + more)

    def set_full_text(self, text: str) -> None:
        if not text.startswith(self._folder + self._name):
            self._folder = self._name = ""  # a text of its own ("Select a result…"): shortened at its end, if at all
        super().set_full_text(text)

    def _elide(self) -> None:
        width, fm, full = self.contentsRect().width(), self.fontMetrics(), self.full_text()
        shown = self._fit(fm, width) if width > 0 and fm.horizontalAdvance(full) > width else full
        if shown != self.text():
            self.setText(shown)

    def _fit(self, fm: QFontMetrics, width: int) -> str:
        folder, name, full = self._folder, self._name, self.full_text()
        if not name:
            return fm.elidedText(full, Qt.TextElideMode.ElideRight, width)
        after = full[len(folder) + len(name):]
        if folder:
            room = width - fm.horizontalAdvance(name + after)
            cut = cut_in_middle(folder, fm, room) if room > fm.horizontalAdvance("…" + os.sep) else ""
            if cut and fm.horizontalAdvance(cut + name + after) <= width:
                return cut + name + after
        lead = "…" + os.sep if folder else ""  # the folders gone: on hover
        room = width - fm.horizontalAdvance(lead + name)
        if room >= 0:  # the name whole, the page and the note as far as they fit
            return lead + name + fm.elidedText(after, Qt.TextElideMode.ElideRight, room)
        return lead + fm.elidedText(name, Qt.TextElideMode.ElideMiddle, width - fm.horizontalAdvance(lead))


class PassageBrowser(QTextBrowser):
    """The preview's text: a new width (the score inspector opened beside it, the splitter dragged) reflows the
    text, and the scroll bar kept its pixels, so what was at the top (the highlighted passage) moved out of view
    and other text of the file took its place. The text that was at the top stays at the top."""

    def resizeEvent(self, event: QResizeEvent) -> None:
        if event.oldSize().width() == event.size().width() or self.document().isEmpty():
            super().resizeEvent(event)
            return
        # the first text in view, laid out at the old width (below the document's margin: y=0 is the line above)
        top = self.cursorForPosition(QPoint(0, int(self.document().documentMargin()) + 1))
        super().resizeEvent(event)
        bar = self.verticalScrollBar()
        bar.setValue(bar.value() + self.cursorRect(top).top())


class PreviewPane(QWidget):
    openRequested = Signal(QUrl)

    def __init__(self, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self.hit: Optional[Hit] = None
        self.title = TitleLine(EMPTY_TITLE)  # one line, plain text, the whole on hover
        self._shown = ""  # the HTML now in the browser
        self.browser = PassageBrowser()
        self.browser.setObjectName("previewPane")
        self.browser.setOpenLinks(False)  # a document's links are never followed
        self.browser.setOpenExternalLinks(False)
        self.browser.setAccessibleName("Preview")
        self.open_button = QPushButton("Open file")
        self.folder_button = QPushButton("Show in folder")
        for b in (self.open_button, self.folder_button):
            b.setEnabled(False)
        self.opener = FileOpener(self)  # a member is copied out of its container on a worker
        self.opener.opened.connect(self.openRequested)
        self.opener.busy.connect(self._opening)
        self.opener.failed.connect(self._open_failed)
        self.open_button.clicked.connect(lambda: self.hit and self.opener.open(self.hit))
        self.folder_button.clicked.connect(lambda: self.hit and self.openRequested.emit(folder_url(self.hit)))
        self.failure = OpenFailure()  # the desktop could not open it: Show in folder, Copy path
        self.failure.folderRequested.connect(self.openRequested)
        self.head = QGridLayout()  # the title, then the buttons: beside it, or under it in a narrow pane (_place)
        self.head.setContentsMargins(0, 0, 0, 0)
        self.narrow: Optional[bool] = None
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(self.head)
        lay.addWidget(self.failure)
        lay.addWidget(self.browser, 1)
        self._place()

    def _place(self) -> None:
        """Beside the score inspector the pane is a third of the width: the buttons left the title ~130 px, not
        even a file's name. There the title has the line to itself and the buttons go under it, on the right."""
        narrow = self.width() < NARROW_PX
        if narrow == self.narrow:
            return
        self.narrow = narrow
        for w in (self.title, self.open_button, self.folder_button):
            self.head.removeWidget(w)
        self.head.addWidget(self.title, 0, 0, 1, 3 if narrow else 1)
        self.head.addWidget(self.open_button, 1 if narrow else 0, 1)
        self.head.addWidget(self.folder_button, 1 if narrow else 0, 2)
        self.head.setColumnStretch(0, 1)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._place()

    def clear(self) -> None:
        self.hit = None
        self.failure.hide()
        self.title.set_full_text(EMPTY_TITLE)
        self.title.setToolTip("")
        self.browser.clear()
        self._shown = ""
        for b in (self.open_button, self.folder_button):
            b.setEnabled(False)

    def show_hit(self, hit: Hit, terms: list[str], text: Optional[str] = None, note: str = "") -> None:
        """Show `hit`; `text` is its file's whole extracted text (None while loading or when unreadable)."""
        if self.hit is None or self.hit.path != hit.path:
            self.failure.hide()  # it spoke of another file
        self.hit = hit
        where = shown_path(hit.path) + (f" — {page_label(hit.path, hit.page)}" if hit.page else "")
        also = [f"the same text {len(hit.repeats)} more time{'s' if len(hit.repeats) > 1 else ''} in this file"] if hit.repeats else []
        also += [f"{len(hit.more)} other matching passage{'s' if len(hit.more) > 1 else ''}"] if hit.more else []
        ocr = ["text recognised by OCR"] if hit.ocr else []  # a person should know the words may be misread
        note = "; ".join(([note] if note else []) + ocr + also)
        path = shown_path(hit.path)
        folder = shown_path(os.path.dirname(container_of(hit.path))).rstrip(os.sep) + os.sep  # a member: its file's
        folder = folder if len(folder) > 1 and path.startswith(folder) else ""  # shortened first where too long
        self.title.set_line(folder, path[len(folder):], where[len(path):] + (f"  ({note})" if note else ""))
        self.title.setToolTip(tooltip(path + (f"\n{note}" if note else "")))  # the line whole, the path first
        if text is not None and text[hit.start:hit.end] == hit.text:
            shown = context_html(text, hit.start, hit.end, terms, is_code(hit.path))
        else:  # file changed or not readable: the stored passage alone is still true to the index
            shown = context_html(hit.text, 0, len(hit.text), terms, is_code(hit.path))
        if shown != self._shown:  # the file's text may add nothing to the passage shown at once
            self._shown = shown
            self.browser.setHtml(shown)
            self.browser.scrollToAnchor("passage")
        self.open_button.setEnabled(not self.opener.pending)  # one Open at a time
        self.folder_button.setEnabled(True)

    def open_failed(self, url: QUrl) -> None:
        """The desktop could not open `url` (the hit's file or its folder): say so, with the ways out."""
        hit = self.hit
        if hit is None:
            self.failure.show_for(url, "", None)
            return
        folder = folder_url(hit)
        self.failure.show_for(url, hit.path if url.toLocalFile() != folder.toLocalFile() else "", folder)

    def _opening(self, busy: bool) -> None:
        self.open_button.setText("Opening…" if busy else "Open file")
        self.open_button.setEnabled(not busy and self.hit is not None)

    def _open_failed(self, message: str) -> None:
        self.title.append(f"  ({message})")

    def plain_text(self) -> str:
        return self.browser.toPlainText()
