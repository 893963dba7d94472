"""Spreadsheet text, shared by .xlsx, .xls and .ods: each sheet a page (page = sheet number) that starts with the
sheet's name, then one line per row, its cells joined by " | ".

Rows arrive cell by cell, each with how many times it repeats, so a hostile "repeat 1,000,000" costs
nothing until it is rendered, and rendering is capped:
- empty trailing cells are dropped and fully empty rows skipped (an empty run costs nothing at any length);
- a run of empty cells inside a row keeps at most MAX_EMPTY_RUN cells (column alignment is worth a few
  separators, not thousands), however the empty cells are written: repeated, or one by one;
- a non-empty cell or row repeats at most MAX_REPEAT times;
- at most MAX_CELLS non-empty cells per file are read, and MAX_WRITTEN cell and row elements as the file
  writes them (empty ones too: a repeat attribute counts once, so this bounds the reading, not the layout;
  cells a reader holds before giving them, as the .xls reader does, count when they are read, and again when
  given); then reading stops and Document.notes says so.
"""

from __future__ import annotations

import math
import re
from typing import Optional

from ...base.types import Document
from .paged import PagedText

__all__ = ["Workbook", "cell_text", "number_text", "MAX_CELLS", "MAX_WRITTEN", "MAX_REPEAT", "MAX_EMPTY_RUN",
           "CELL_SEPARATOR"]

MAX_CELLS = 200_000  # non-empty cells per file
MAX_WRITTEN = 2_000_000  # cell and row elements per file, empty ones included: what reading them costs
MAX_REPEAT = 1000  # repeats honoured for one non-empty cell or row
MAX_EMPTY_RUN = 10  # empty cells kept between two non-empty ones
MAX_CELL_CHARS = 32_767  # Excel's own limit for one cell; a longer "cell" is cut
CELL_SEPARATOR = " | "
_LINE_BREAKS = re.compile(r"\s*[\r\n\v\f\u2028\u2029]+\s*")  # a cell stays on its row's line

Run = tuple[str, int]  # (cell text, repeat count)


def cell_text(raw: Optional[str]) -> str:
    if not raw:
        return ""
    return _LINE_BREAKS.sub(" ", raw[:MAX_CELL_CHARS]).strip()


def number_text(value: float) -> str:
    """A number cell as .xls and .xlsx both read it: the shortest text that reads back as the same double
    (19.99, not the 19.989999999999998 an .xlsx part may hold), a whole number without ".0". Number formats
    (thousands separators, percentages, currencies) are not applied: the cell's value is what is searched."""
    if value.is_integer() and abs(value) < 1e16:  # past 1e16 repr writes an exponent, and so does this
        return str(int(value))
    return repr(value) if math.isfinite(value) else ""


class Workbook:
    """Collects sheets and rows; `full` tells the reader to stop (a cap reached).

    A reader gives each row cell by cell (`cell`, then `end_row`), so the caps hold while a row is read: a
    row of a million cells, empty or not, never becomes a list of a million runs or a line of gigabytes."""

    def __init__(self, max_chars: Optional[int] = None, max_cells: Optional[int] = None) -> None:
        self.pages = PagedText(max_chars)
        self.max_cells = MAX_CELLS if max_cells is None else max_cells
        self.max_written = MAX_WRITTEN
        self.cells = 0
        self.written = 0  # cell and row elements read, empty ones included
        self.capped = False
        self._number = 0
        self._lines: list[str] = []
        self._chars = 0
        self._row: list[Run] = []
        self._row_filled = 0
        self._row_chars = 0

    @property
    def full(self) -> bool:
        return self.capped or self.pages.pos + self._chars + self._row_chars > self.pages.budget

    def start_sheet(self, number: int, name: str) -> None:
        self.end_sheet()
        self._number = number
        self._lines = [cell_text(name) or f"Sheet {number}"]
        self._chars = len(self._lines[0])

    def end_sheet(self) -> None:
        if self._row:
            self.end_row()  # a row the reader left open when the text cap stopped it
        if self._number:
            self.pages.add(self._number, "\n".join(self._lines))
        self._number, self._lines, self._chars = 0, [], 0

    def cell(self, text: str, count: int = 1, skipped: int = 0) -> None:
        """The next cell of the open row, `count` times (a repeat attribute), after `skipped` empty cells (a
        reference that jumps columns). Empty cells next to each other are one gap however they are
        written, one by one or repeated; each call counts as one element written."""
        self._written()
        if self.capped:
            return
        if skipped:
            self._gap(skipped)
        if not text:
            self._gap(count)
            return
        if self.full:
            return
        count = min(count, MAX_REPEAT)
        if self.cells + self._row_filled + count > self.max_cells:  # one enormous row: stop before it grows
            self._row, self._row_filled, self._row_chars = [], 0, 0
            self.cap(f"only the first {self.max_cells:,} cells read")
            return
        row = self._row
        room = self.pages.budget - self.pages.pos - self._chars - self._row_chars
        count = min(count, max(1, room // (len(text) + len(CELL_SEPARATOR)) + 1))  # the text cap cuts the rest
        gap = row[-1][1] if row and not row[-1][0] else 0
        self._row_filled += count
        self._row_chars += (len(text) + len(CELL_SEPARATOR)) * count + len(CELL_SEPARATOR) * gap
        row.append((text, count))

    def _gap(self, count: int) -> None:
        row = self._row
        if row and not row[-1][0]:
            row[-1] = ("", min(row[-1][1] + count, MAX_EMPTY_RUN))
        else:
            row.append(("", min(count, MAX_EMPTY_RUN)))

    def end_row(self, repeat: int = 1) -> None:
        """Close the open row and add it `repeat` times; an empty row is skipped, trailing empty cells dropped."""
        runs, filled = self._row, self._row_filled
        self._row, self._row_filled, self._row_chars = [], 0, 0
        self._written()
        while runs and not runs[-1][0]:
            runs.pop()
        if not runs or self.full:
            return
        line = CELL_SEPARATOR.join(t for text, count in runs for t in [text] * count)
        for _ in range(min(max(repeat, 1), MAX_REPEAT)):
            if self.cells + filled > self.max_cells:
                self.cap(f"only the first {self.max_cells:,} cells read")
                return
            self.cells += filled
            self._lines.append(line)
            self._chars += len(line) + 1
            if self.full:
                return

    def held(self, count: int) -> None:
        """`count` cells the reader read and holds, to give them in order later: elements read (MAX_WRITTEN)."""
        self.written += count - 1
        self._written()

    def _written(self) -> None:
        self.written += 1
        if self.written > self.max_written:
            self.cap(f"reading stopped after {self.max_written:,} cells and rows, most of them empty")

    def cap(self, note: str) -> None:
        """Stop reading: a cap (`note` says which) is reached."""
        if not self.capped:
            self.capped = True
            self.pages.note(note)

    def document(self, kind: str, title: str = "") -> Document:
        self.end_sheet()
        return self.pages.document(kind, title)
