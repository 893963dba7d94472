"""What the results list says when a search found nothing: that it found nothing, and what to try instead
(take out a filter, switch mode); and, while the library has no folder, how to start. A plain-text label laid
over the empty list (it quotes the query)."""

from __future__ import annotations

import os
from typing import Optional

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QAbstractItemView

from ..library import SearchResult
from ..library.query.help import query_parts
from ..library.query.reading import read_query
from ..library.search.result import WHY_EMPTY
from .plain import plain_label

__all__ = ["EmptyResults", "empty_text", "adding_text", "WELCOME"]

MARGIN = 12
WELCOME = ("Nothing is indexed yet. Drop a folder (or files) anywhere on this window, or use File → Add Folder… "
           "(Ctrl+O). Indexing runs in the background, and you can search as soon as the first files are in.")


def adding_text(paths: list[str]) -> str:
    """While the first folders are being added and nothing is searchable yet: what is happening (the first batch
    of a large folder takes seconds, and the window was blank meanwhile)."""
    names = [os.path.basename(p.rstrip(os.sep)) or p for p in paths]
    then = f" (then {', '.join(names[1:])})" if names[1:] else ""
    return (f"Indexing {names[0]}{then}: finding its files, then reading them. The library pane counts them as "
            "they come in, and you can search as soon as the first ones are in.")


def empty_text(result: SearchResult, bar_filters: bool) -> str:
    """"No results for “…”." (with why, when the filters left no file) and the ways out that fit: the filters in
    the bar or the query, the mode."""
    similar = result.mode == "similar"
    filtered = bar_filters or (not similar and bool(query_parts(read_query(result.query))))
    why = result.said(*WHY_EMPTY)  # the filters left no file: which one, and what the library has instead
    tips = []
    if filtered or why:
        tips.append("remove a filter (✕ on a chip under the query, or Clear in the filter bar)")
    # with `why`, another mode would search the same no files: no mode to suggest
    if result.mode == "lexical" and not why:
        tips.append("switch to Words + meaning to find passages by their meaning, not only by these words")
    elif result.mode == "dense" and not why:
        tips.append("switch to Words + meaning or Words to find these exact words")
    if similar and result.meaning_percent is not None:  # no file shares its words, and meaning is unfinished
        tips.append(f"wait while meaning is added (now {result.meaning_percent}% of passages): no other file shares "
                    "this one's distinctive words, and only files with meaning can be compared by meaning")
    if not tips:
        tips.append("try other words, or add the folder that holds what you are looking for")
    what = ("No similar files yet" if similar and result.meaning_percent is not None else
            "No similar files" if similar else f"No results for “{result.query}”" + (f": {why}" if why else ""))
    advice = ", or ".join(tips)
    return f"{what}. {advice[:1].upper()}{advice[1:]}."


class EmptyResults(QObject):
    """The label over `view`'s viewport, shown only while the shown result has no hits."""

    def __init__(self, view: QAbstractItemView) -> None:
        super().__init__(view)
        self.viewport = view.viewport()
        self.label = plain_label("", self.viewport)
        self.label.setObjectName("emptyResults")
        self.label.setWordWrap(True)
        self.label.setStyleSheet("color:#555; font-size:11pt;")
        self.label.hide()
        self.welcome = False  # the label says how to start, not about a search
        # How to start, while the library has nothing to search (show_welcome): a search's "No results" says it too,
        # not "try other words" as if the words had been looked for in files
        self.start: Optional[str] = None
        self.viewport.installEventFilter(self)

    def show_welcome(self, on: bool, text: str = WELCOME) -> None:
        """While the library has no folder and no search is shown: how to start (the first thing a person sees),
        or `text` (what happens while the first folder is added)."""
        self.start = text if on else None
        if on and (self.welcome or not self.label.isVisible()):
            self.welcome = True
            self.label.setText(text)
            self._place()
            self.label.show()
        elif not on and self.welcome:
            self.welcome = False
            self.label.hide()

    def show_for(self, result: Optional[SearchResult], bar_filters: bool) -> None:
        self.welcome = False
        if result is None and self.start is not None:  # the search cleared: how to start, again, in its place
            self.label.hide()
            self.show_welcome(True, self.start)
            return
        if result is None or result.hits:
            self.label.hide()
            return
        nothing_yet = self.start is not None and result.mode != "similar"
        self.label.setText(f"No results for “{result.query}”. {self.start}" if nothing_yet
                           else empty_text(result, bar_filters))
        self._place()
        self.label.show()

    def show_failed(self, query: str, why: str) -> None:
        """The search for `query` could not run (a shared library's server gone, a library that cannot be read):
        said over the emptied list, so no earlier search's results stand under this query as if they were its."""
        self.welcome = False
        what = f"The search for “{query}” could not run" if query.strip() else "The search could not run"
        self.label.setText(f"{what}: {why}")
        self._place()
        self.label.show()

    def _place(self) -> None:
        width = max(100, self.viewport.width() - 2 * MARGIN)
        self.label.setFixedWidth(width)
        self.label.adjustSize()
        self.label.move(MARGIN, MARGIN)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if obj is self.viewport and event.type() == QEvent.Type.Resize and self.label.isVisible():
            self._place()
        return super().eventFilter(obj, event)
