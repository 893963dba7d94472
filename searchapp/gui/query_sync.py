"""One query text, three views: the query box, the chips under it and the filter bar.

The query text is the truth. Typing in the box re-parses it: the chips show its constraints and the filter bar
its in:/type:/after:/before: fields (shown without the bar emitting `changed`). Editing the bar rewrites those
fields in the text (library/query/syntax.with_filters); a chip's ✕ writes the text without that part. `_busy` guards
each direction, so one edit makes exactly one pass: the text set from the bar is not mirrored back into it.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Optional

from PySide6.QtCore import QDate, QObject

from ..library import SearchFilters
from ..library.query.reading import as_searched
from ..library.query.syntax import ParsedQuery, filters_of, parse_query, with_filters

if TYPE_CHECKING:
    from .filter_bar import FilterBar
    from .query_chips import QueryChips
    from .search_controller import SearchController

__all__ = ["QuerySync"]


def _day(ts: Optional[float]) -> Optional[QDate]:
    if ts is None:
        return None
    t = time.localtime(ts)
    return QDate(t.tm_year, t.tm_mon, t.tm_mday)


class QuerySync(QObject):
    def __init__(self, search: SearchController, filter_bar: FilterBar, chips: QueryChips) -> None:
        super().__init__(search)
        self.search, self.box, self.bar, self.chips = search, search.search_box, filter_bar, chips
        self._busy = False
        self.rewrites = 0  # texts written from the bar or a chip (tests count passes with it)
        self.box.textChanged.connect(self.from_query)
        self.bar.changed.connect(self.from_bar)
        self.chips.queryChanged.connect(self.set_query)

    def from_query(self, text: str) -> None:
        if self._busy:
            return
        self._busy = True
        try:
            parsed = parse_query(text)
            self.chips.show_query(parsed)
            self._show_fields(as_searched(parsed))  # a field amid a long question is words: not a filter here either
        finally:
            self._busy = False

    def _show_fields(self, parsed: ParsedQuery) -> None:
        try:
            f = filters_of(parsed)
        except Exception:  # the parser checked every date; never let the mirror break typing
            return
        self.bar.show_fields(list(parsed.folders), list(parsed.types), _day(f.after), _day(f.before))

    def from_bar(self) -> None:
        """The bar was edited: its fields replace the query's (the words, name: and page: stay)."""
        if self._busy:
            return
        self._busy = True
        try:
            text = self.box.text()
            new = with_filters(text, self.bar.filters() or SearchFilters())
            if new.strip() != text.strip():
                self.rewrites += 1
                self.box.setText(new)
            self.chips.show_query(parse_query(new))
        finally:
            self._busy = False
        self.search.search_soon()

    def set_query(self, text: str) -> None:
        """A new query text from outside the box (a chip's ✕, a saved search): every view follows, and it is searched."""
        self.rewrites += 1
        self.box.setText(text)  # textChanged -> from_query mirrors it into the chips and the bar
        self.search.run_search() if not text.strip() else self.search.search_soon()  # empty: clears the results
