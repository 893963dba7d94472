"""Spreadsheet text, shared by .xlsx and .ods: each sheet a page (page = sheet number) that starts with the
sheet's name, then one line per row, its cells joined by " | ".

Rows arrive as runs of (cell text, how many times it repeats), so a hostile "repeat 1,000,000" costs
nothing until it is rendered, and rendering is capped:
- empty trailing cells are dropped and fully empty rows skipped (an empty run costs nothing at any length);
- a run of empty cells inside a row keeps at most MAX_EMPTY_RUN cells (column alignment is worth a few
  separators, not thousands);
- a non-empty cell or row repeats at most MAX_REPEAT times;
- at most MAX_CELLS non-empty cells per file are read; then reading stops and Document.notes says so.
"""

from __future__ import annotations

import re
from typing import Optional

from ...base.types import Document
from .paged import PagedText

__all__ = ["Workbook", "MAX_CELLS", "MAX_REPEAT", "MAX_EMPTY_RUN", "CELL_SEPARATOR"]

MAX_CELLS = 200_000  # non-empty cells per file
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


class Workbook:
    """Collects sheets and rows; `full` tells the reader to stop (cell or character cap reached)."""

    def __init__(self, max_chars: Optional[int] = None, max_cells: Optional[int] = None) -> None:
        self.pages = PagedText(max_chars)
        self.max_cells = MAX_CELLS if max_cells is None else max_cells
        self.cells = 0
        self.capped = False
        self._number = 0
        self._lines: list[str] = []
        self._chars = 0

    @property
    def full(self) -> bool:
        return self.capped or self.pages.pos + self._chars > self.pages.budget

    def start_sheet(self, number: int, name: str) -> None:
        self.end_sheet()
        self._number = number
        self._lines = [cell_text(name) or f"Sheet {number}"]
        self._chars = len(self._lines[0])

    def end_sheet(self) -> None:
        if self._number:
            self.pages.add(self._number, "\n".join(self._lines))
        self._number, self._lines, self._chars = 0, [], 0

    def add_row(self, runs: list[Run], repeat: int = 1) -> None:
        """One row (`repeat` times), as runs of cell text; empty rows are skipped."""
        while runs and not runs[-1][0]:
            runs.pop()  # empty trailing cells
        if not runs or self.full:
            return
        cells: list[str] = []
        filled = 0
        for text, count in runs:
            if text:
                count = min(count, MAX_REPEAT)
                filled += count
            else:
                count = min(count, MAX_EMPTY_RUN)
            cells.extend([text] * count)
        line = CELL_SEPARATOR.join(cells)
        for _ in range(min(max(repeat, 1), MAX_REPEAT)):
            if self.cells + filled > self.max_cells:
                self._cap()
                return
            self.cells += filled
            self._lines.append(line)
            self._chars += len(line) + 1
            if self.full:
                return

    def _cap(self) -> None:
        self.capped = True
        self.pages.note(f"only the first {self.max_cells:,} cells read")

    def document(self, kind: str, title: str = "") -> Document:
        self.end_sheet()
        return self.pages.document(kind, title)
