"""What a hostile .xls costs: about what its bytes do. xlrd pads a row with empty cells up to a cell's column
and (with formatting_info) keeps blank cells, so a cell at the last column of every row once held 256 cells a
row; the reader now holds only the cells written. Sheets are capped in number, and a sheet's data shared by
several BOUNDSHEET records is read once. The workbook streams are written here, bare (a BIFF8 stream alone, which
the reader takes as a workbook) or in a compound file."""

from __future__ import annotations

import struct
import tracemalloc
from pathlib import Path

import pytest

from searchapp.ingest.extractors.ole_writer import compound_file as cfb
from searchapp.ingest.extractors import extract, sheets, xls97


def _biff(kind: int, body: bytes = b"") -> bytes:
    return struct.pack("<HH", kind, len(body)) + body


def _bof(kind: int) -> bytes:
    return _biff(0x0809, struct.pack("<HHHHII", 0x0600, kind, 0x0DBB, 0x07CC, 0, 0x06))


def _globals(sheets: int) -> bytes:
    """The workbook globals up to the BOUNDSHEET records: 16 style XFs, a cell XF (index 16) in General."""
    xf = _biff(0x00E0, struct.pack("<HHHBBBBIIH", 0, 0, 0xFFF5, 0x20, 0, 0, 0, 0, 0, 0x20C0))
    cell_xf = _biff(0x00E0, struct.pack("<HHHBBBBIIH", 0, 0, 0x0001, 0x20, 0, 0, 0, 0, 0, 0x20C0))
    font = _biff(0x0031, struct.pack("<HHHHHBBBB", 200, 0, 0x7FFF, 400, 0, 0, 0, 0, 0) + b"\x05\x00Arial")
    return _bof(0x0005) + font * 5 + xf * 16 + cell_xf


def _boundsheet(at: int, name: str) -> bytes:
    return _biff(0x0085, struct.pack("<IBBBB", at, 0, 0, len(name), 0) + name.encode("latin-1"))


def workbook(sheets: list[bytes], names: list[str], points: list[int]) -> bytes:
    """A BIFF8 stream: BOUNDSHEET i named names[i] points at sheets[points[i]] (each sheet's records, BOF to EOF)."""
    head = _globals(len(names))
    bounds_size = sum(len(_boundsheet(0, n)) for n in names)
    at, starts = len(head) + bounds_size + 4, []
    for sheet in sheets:
        starts.append(at)
        at += len(sheet)
    bounds = b"".join(_boundsheet(starts[p], n) for p, n in zip(points, names, strict=True))
    return head + bounds + _biff(0x000A) + b"".join(sheets)


def sheet(cells: bytes) -> bytes:
    return _bof(0x0010) + cells + _biff(0x000A)


def number(row: int, col: int, value: float) -> bytes:
    return _biff(0x0203, struct.pack("<HHHd", row, col, 16, value))


def label(row: int, col: int, text: str) -> bytes:
    return _biff(0x0204, struct.pack("<HHHHB", row, col, 16, len(text), 0) + text.encode("latin-1"))


def blank(row: int, col: int) -> bytes:
    return _biff(0x0201, struct.pack("<HHH", row, col, 16))


def _read(path: Path, data: bytes, ole: bool = False) -> tuple[str, tuple[str, ...], int]:
    """The text, the notes and the peak of memory (bytes) allocated while reading."""
    path.write_bytes(cfb({"Workbook": data.ljust(4096, b"\0")}) if ole else data)
    tracemalloc.start()
    try:
        doc = extract(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return doc.text, doc.notes, peak


@pytest.mark.parametrize("kind", ["blank", "number"])
def test_a_cell_at_the_last_column_of_every_row_costs_one_cell(tmp_path: Path, kind: str) -> None:
    rows = 8192  # padded to 256 cells each, 2 million cells: 20+ MB as xlrd holds them
    cells = b"".join(blank(r, 255) if kind == "blank" else number(r, 255, 7.0) for r in range(1, rows + 1))
    text, notes, peak = _read(tmp_path / "far.xls", workbook([sheet(label(0, 0, "Far") + cells)], ["S"], [0]),
                              ole=True)
    lines = text.split("\n")
    assert lines[:2] == ["S", "Far"] and notes == ()
    assert lines[2:] == ([] if kind == "blank" else [" | " * 10 + "7"] * rows)
    assert peak < (6 if kind == "blank" else 12) * 2**20, peak  # the number rows' text alone is about 2.3 MB


def test_sheets_are_capped_in_number(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(xls97, "MAX_SHEETS", 3)
    sheets = [sheet(label(0, 0, f"cell {n}")) for n in range(5)]
    text, notes, _ = _read(tmp_path / "many.xls", workbook(sheets, [f"S{n}" for n in range(5)], list(range(5))))
    assert text == "S0\ncell 0\n\nS1\ncell 1\n\nS2\ncell 2"
    assert notes == ("only the first 3 sheets read",)


def test_sheet_data_shared_by_several_sheets_is_read_once(tmp_path: Path) -> None:
    one = sheet(label(0, 0, "shared") + number(1, 0, 1.5))
    two = sheet(label(0, 0, "own"))
    text, notes, _ = _read(tmp_path / "copies.xls", workbook([one, two], ["A", "B", "C", "D"], [0, 0, 1, 0]))
    assert text == "A\nshared\n1.5\n\nC\nown" and notes == ()


def test_cells_read_by_row_and_column_whatever_order_the_file_writes_them(tmp_path: Path) -> None:
    cells = number(1, 2, 6.0) + label(0, 1, "b") + number(1, 0, 4.0) + label(0, 0, "a") + label(0, 1, "B")
    text, _, _ = _read(tmp_path / "order.xls", workbook([sheet(cells)], ["S"], [0]))
    assert text == "S\na | B\n4 |  | 6"  # of two cells at one place, the later one


def test_cells_that_show_nothing_are_capped_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sheets, "MAX_CELLS", 10)
    monkeypatch.setattr(xls97, "_UNSHOWN", 100)  # so at most 110 cells held
    errors = b"".join(_biff(0x0205, struct.pack("<HHHBB", r, 0, 16, 0x2A, 1)) for r in range(1, 1000))  # #N/A
    cells = label(0, 0, "first") + errors + label(1000, 0, "after")
    text, notes, _ = _read(tmp_path / "na.xls", workbook([sheet(cells), sheet(label(0, 0, "next"))], ["S", "T"], [0, 1]))
    assert text == "S\nfirst" and notes == ("only the first 10 cells read",)


def test_sheets_starting_inside_one_long_sheet_read_its_records_once(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A review's file: 1,000 sheet starts back to back, then 20,000 filler records read by every sheet (no cell
    is put, so no cell cap stops it): 1,000 reads of the same records, 30 s for 441 KB. The records read are counted,
    not timed: each sheet's span is read once, and all sheets together read at most twice the stream."""
    from xlrd.book import Book

    names = [f"S{k}" for k in range(1000)]
    head = _globals(len(names))
    start = len(head) + sum(len(_boundsheet(0, n)) for n in names) + 4
    bof = _bof(0x0010)
    bounds = b"".join(_boundsheet(start + k * len(bof), n) for k, n in enumerate(names))
    body = bof * len(names) + label(0, 0, "x") + _biff(0x0000) * 20_000 + _biff(0x000A) * 2
    path = tmp_path / "overlap.xls"
    path.write_bytes(cfb({"Workbook": (head + bounds + _biff(0x000A) + body).ljust(4096, b"\0")}))
    reads = [0]
    real = Book.get_record_parts

    def counted(self):
        reads[0] += 1
        return real(self)

    monkeypatch.setattr(Book, "get_record_parts", counted)
    extract(path)
    assert reads[0] < 3 * 20_000  # was ~1,000 x 20,000
