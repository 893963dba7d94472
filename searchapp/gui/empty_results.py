"""What the results list says when a search found nothing: that it found nothing, and what to try instead
(take out a filter, drop the quotes of a phrase no file holds, switch mode); and, while the library has no folder,
how to start. A plain-text label laid over the empty list (it quotes the query)."""

from __future__ import annotations

import os
from typing import Optional

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QAbstractItemView

from ..library import SearchResult
from ..library.query.help import query_parts
from ..library.query.reading import read_query
from ..library.query.syntax import Clause, ParsedQuery
from ..library.search.result import WHY_EMPTY
from .plain import plain_label

__all__ = ["EmptyResults", "empty_text", "adding_text", "ready_text", "WELCOME"]

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


def ready_text(files: int) -> str:
    """Files are searchable and no search is shown: how many, and where to type (after a first sync the results
    area was blank, and a newcomer did not know what to do next)."""
    are = "file is" if files == 1 else "files are"
    return f"{files:,} {are} searchable: type what you are looking for above (Ctrl+L)"


def empty_text(result: SearchResult, bar_filters: bool) -> str:
    """"No results for “…”." (with why, when the filters left no file) and the ways out that fit: the filters in
    the bar or the query, the quotes of a phrase no file holds, the mode."""
    similar = result.mode == "similar"
    parsed = read_query(result.query) if not similar else None
    narrowing, required = _parts(parsed)
    filtered = bar_filters or narrowing
    why = result.said(*WHY_EMPTY)  # the filters left no file: which one, and what the library has instead
    phrases = [t.text for c in required for t in c.terms if t.phrase]
    holds = ""  # what no file holds, where nothing else narrowed the search: the parts it requires, together
    if required and not filtered and not why and result.mode != "dense":  # meaning may lack the files that do
        holds = ": no file holds " + _required_text(required)
    tips = []
    if filtered or why:
        tips.append("remove a filter (✕ on a chip under the query, or Clear in the filter bar)")
    if phrases and not why:  # a phrase's words in this order: its words alone rank the files that hold them
        tips.append("drop the quotes to search " + ("its words" if len(phrases) == 1 else "their words"))
    elif required and not why:  # `word*` or `a OR b`: a part every file listed must hold
        tips.append("remove a part the files must hold (✕ on its chip under the query)")
    # with `why`, another mode would search the same no files; every mode requires the same parts
    if result.mode == "lexical" and not why and not required:
        tips.append("switch to Words + meaning to find passages by their meaning, not only by these words")
    elif result.mode == "dense" and not why and not required:
        tips.append("switch to Words + meaning or Words to find these exact words")
    if similar and result.meaning_percent is not None:  # no file shares its words, and meaning is unfinished
        tips.append(f"wait while meaning is added (now {result.meaning_percent}% of passages): no other file shares "
                    "this one's distinctive words, and only files with meaning can be compared by meaning")
    if not tips:
        tips.append("try other words, or add the folder that holds what you are looking for")
    what = ("No similar files yet" if similar and result.meaning_percent is not None else
            "No similar files" if similar else f"No results for “{result.query}”" + (f": {why}" if why else holds))
    advice = ", or ".join(tips)
    return f"{what}. {advice[:1].upper()}{advice[1:]}."


def _parts(parsed: Optional[ParsedQuery]) -> tuple[bool, list[Clause]]:
    """(whether the query's chips hold a filter: a field, a tag, an exclusion; the clauses a file must hold: its
    phrases, prefixes and OR groups). A phrase is a chip too, but no filter: "remove a filter" with none set (only
    the phrase's chip under the query) sent a newcomer looking for one."""
    if parsed is None:
        return False, []
    narrowing, required = False, []
    for part in query_parts(parsed):
        if part.key[0] != "clause":
            narrowing = True  # in:, type:, name:, a date, page:, a message's header
            continue
        clause = parsed.clauses[int(part.key[1])]
        if clause.kind == "exclude" or any(t.tag for t in clause.terms):
            narrowing = True
        else:
            required.append(clause)
    return narrowing, required


def _required_text(required: list[Clause]) -> str:
    """The parts a file must hold, as a person reads them: 'the phrase “no such phrase”', 'a word starting with
    “volc”', 'any of “a OR b”', or several: '“a b” and “c*” together'."""
    if len(required) > 1:  # a phrase without its straight quotes inside the curly ones
        return " and ".join(f"“{c.terms[0].text if len(c.terms) == 1 and c.terms[0].phrase else c.to_text()}”"
                            for c in required) + " together"
    terms = required[0].terms
    if len(terms) > 1:
        return f"any of “{required[0].to_text()}”"
    return f"the phrase “{terms[0].text}”" if terms[0].phrase else f"a word starting with “{terms[0].text}”"


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
        self.ready: Optional[str] = None  # what is searchable, while no search is shown (show_ready)
        self.idle = True  # no search shown: the list is empty because nothing was asked
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

    def show_ready(self, text: Optional[str]) -> None:
        """The library holds files (`text`: ready_text) or none (None): said while no search is shown and no
        welcome is; a welcome-like text, so a welcome or a search takes its place."""
        self.ready = text
        if self.start is not None or not self.idle:
            return
        if text:
            self.welcome = True
            self.label.setText(text)
            self._place()
            self.label.show()
        elif self.welcome:
            self.welcome = False
            self.label.hide()

    def show_for(self, result: Optional[SearchResult], bar_filters: bool) -> None:
        self.welcome = False
        self.idle = result is None
        if result is None and self.start is not None:  # the search cleared: how to start, again, in its place
            self.label.hide()
            self.show_welcome(True, self.start)
            return
        if result is None and self.ready:  # the search cleared: what is searchable, again
            self.label.hide()
            self.show_ready(self.ready)
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
        self.welcome, self.idle = False, False
        what = f"The search for “{query}” could not run" if query.strip() else "The search could not run"
        self.label.setText(f"{what}: {why}")
        self._place()
        self.label.show()

    def _place(self) -> None:
        width = max(100, self.viewport.width() - 2 * MARGIN)
        self.label.setFixedWidth(width)
        # as tall as its lines at this width: adjustSize kept the height of a wider one, and at 900 px the welcome's
        # three lines showed as two, its first words ("Nothing is indexed yet") above the label's top
        self.label.setFixedHeight(self.label.heightForWidth(width))
        self.label.move(MARGIN, MARGIN)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if obj is self.viewport and event.type() == QEvent.Type.Resize and self.label.isVisible():
            self._place()
        return super().eventFilter(obj, event)
