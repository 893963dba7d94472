"""Excel .xlsx/.xlsm: every worksheet's cells, a sheet per page (see sheets.py for the layout and caps).

Reads SpreadsheetML directly through SafeZip, streaming each worksheet so a sheet of a million rows is never
one tree in memory. A cell's text is what Excel stored: shared and inline strings, numbers as written (no
number formats applied, so a date is its serial number), booleans as TRUE/FALSE, errors such as #DIV/0!.
A formula's own text is skipped; its cached value (what Excel last computed) is kept. Chart sheets and
dialog sheets hold no cells and are left out; sheet numbers stay their position in the workbook.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator, Optional
from xml.etree.ElementTree import Element

from ...base.progress import CancelToken
from ...base.types import Document
from .opc import core_title, listed_parts, package_part, part_relationships
from .sheets import Run, Workbook, cell_text
from .ziputil import SafeZip, local_name

__all__ = ["SUFFIXES", "extract_xlsx", "MAX_SHARED_STRINGS"]

SUFFIXES = frozenset({".xlsx", ".xlsm"})

MAX_WORKBOOK_BYTES = 16 * 2**20  # workbook.xml lists sheets and names: a few KB in real files
MAX_SHARED_STRINGS = 1_000_000  # strings kept from sharedStrings.xml
MAX_COLUMN = 16_384  # Excel's last column, XFD
_CHECK_EVERY = 4096  # XML events between two cancel checks
_SI = frozenset({"si"})
_ROW_CELL = frozenset({"row", "c"})
_COLUMN = re.compile(r"[A-Za-z]{1,3}")


def _column(ref: Optional[str], previous: int) -> int:
    """1-based column of a cell reference like "C5"; the next column when it has none (it may be left out)."""
    m = _COLUMN.match(ref or "")
    if not m:
        return previous + 1
    n = 0
    for ch in m.group(0).upper():
        n = n * 26 + ord(ch) - 64
    return min(n, MAX_COLUMN)


def _string_item(el: Element) -> str:
    """Text of a shared-string item or inline string: <t>, or rich-text runs <r><t>; phonetic <rPh> skipped."""
    parts: list[str] = []
    for child in el:
        name = local_name(child.tag)
        if name == "t":
            parts.append(child.text or "")
        elif name == "r":
            parts.extend(t.text or "" for t in child if local_name(t.tag) == "t")
    return "".join(parts)


def _stream(z: SafeZip, part: str, units: frozenset[str],
            cancel: Optional[CancelToken]) -> Iterator[tuple[str, Element, list[Element]]]:
    """(local name, element, open ancestors) as each element of a part ends. Elements named in `units` and the
    root's children are dropped once the caller has seen them, so memory stays flat on any size."""
    stack: list[Element] = []
    names: dict[str, str] = {}  # tag -> local name: a sheet has a handful of tags and a million elements
    for n, (event, el) in enumerate(z.iterparse(part)):
        if cancel is not None and n % _CHECK_EVERY == 0:
            cancel.check()
        if event == "start":
            stack.append(el)
            continue
        stack.pop()
        name = names.get(el.tag)
        if name is None:
            name = names[el.tag] = local_name(el.tag)
        yield name, el, stack
        if stack and (name in units or len(stack) == 1):
            stack[-1].remove(el)


def _shared_strings(z: SafeZip, part: str, budget: int, notes: list[str],
                    cancel: Optional[CancelToken]) -> list[str]:
    strings: list[str] = []
    chars = 0
    for name, el, _ in _stream(z, part, _SI, cancel):
        if name != "si":
            continue
        if len(strings) >= MAX_SHARED_STRINGS or chars > budget:
            notes.append(f"shared strings after the first {len(strings):,} left out")
            break
        text = cell_text(_string_item(el))
        strings.append(text)
        chars += len(text)
    return strings


def _value(cell: Element, strings: list[str]) -> str:
    kind = cell.get("t", "n")
    v = None
    for child in cell:
        name = local_name(child.tag)
        if name == "v":
            v = child.text
        elif name == "is":
            return cell_text(_string_item(child))
    if v is None:
        return ""
    if kind == "s":
        try:
            index = int(v)
        except ValueError:
            return ""
        return strings[index] if 0 <= index < len(strings) else ""
    if kind == "b":
        return "TRUE" if v.strip() in ("1", "true") else "FALSE"
    return cell_text(v)


def _read_sheet(z: SafeZip, part: str, book: Workbook, strings: list[str], cancel: Optional[CancelToken]) -> None:
    runs: list[Run] = []
    column = 0
    filled = 0
    for name, el, stack in _stream(z, part, _ROW_CELL, cancel):
        if name == "c" and stack and local_name(stack[-1].tag) == "row":
            at = _column(el.get("r"), column)
            text = _value(el, strings)
            if at > column + 1:
                runs.append(("", at - column - 1))
            runs.append((text, 1))
            column = max(at, column + 1)  # a reference going backwards is taken as the next column
            filled += bool(text)
            if book.cells + filled > book.max_cells:  # one enormous row: stop before it grows further
                book.add_row(runs)
                return
        elif name == "row":
            book.add_row(runs)
            runs, column, filled = [], 0, 0
            if book.full:
                return


def _sheets(z: SafeZip, workbook: str) -> list[tuple[int, str, Optional[str]]]:
    """(sheet number, name, worksheet part or None) in workbook order."""
    listed = listed_parts(z, workbook, MAX_WORKBOOK_BYTES, "sheet", "an Excel workbook")
    return [(n, el.get("name", ""), target if type_.endswith("/worksheet") else None)
            for n, (el, type_, target) in enumerate(listed, start=1)]


def extract_xlsx(path: Path, max_bytes: int, max_chars: Optional[int] = None,
                 cancel: Optional[CancelToken] = None) -> Document:
    book = Workbook(max_chars)
    with SafeZip(path) as z:
        workbook = package_part(z, "/officeDocument", "xl/workbook.xml")
        sheets = _sheets(z, workbook)
        notes: list[str] = []
        strings: list[str] = []
        for type_, target in part_relationships(z, workbook).values():
            if type_.endswith("/sharedStrings") and z.find(target):
                strings = _shared_strings(z, target, book.pages.budget, notes, cancel)
        for note in notes:
            book.pages.note(note)
        for number, name, part in sheets:
            if book.full:
                break
            if part is None or not z.find(part):
                continue
            book.start_sheet(number, name)
            _read_sheet(z, part, book, strings, cancel)
        title = core_title(z)
    return book.document("xlsx", title)
