"""The same cell reads the same in .xls and .xlsx: a number as the shortest text that is the same double (19.99,
whatever float noise the file holds), a date or time as its format shows it (xlsx_dates.py), to the second. The
.xls files are BIFF8 workbook streams written here (with FORMAT and XF records, which make_xls leaves out); the
.xlsx files come from tests/office_files.py. Excel 2.x to 4.0 workbooks (a BIFF2-4 stream alone, no OLE
container) are read by the same reader. An .xlsx sheet's cell comments follow its cells."""

from __future__ import annotations

import struct
import zipfile
from pathlib import Path

import pytest

from searchapp.ingest.extractors.ole_writer import compound_file as cfb
from searchapp.base.errors import ExtractionError, UnsupportedFileError
from searchapp.ingest.extractors import extract, sheets

from office_files import REL, SML, header_footer, make_xlsx, rels, with_drawing, write_zip

# (number format code, or a built-in id; value) -> the text both readers give
NUMBERS = [(None, 19.99, "19.99"), (None, 0.025, "0.025"), (None, -1599.99, "-1599.99"),
           (None, 198356388.0, "198356388"), (None, 1234567890123456.0, "1234567890123456"),
           (None, 1e20, "1e+20"), (None, 1e-7, "1e-07"), (None, -0.0, "0")]
# The serials as Excel 2003 wrote them in Tika's testEXCEL-formats.xls: 06:15 plus 0.687 s of float noise.
DATES = [(20, 33966.26041767, "06:15"), (18, 33966.76041767, "18:15"), (14, 40089.84792477, "2009-10-03"),
         ("yyyy\\-mm\\-dd\\ hh:mm", 39466.19097, "2008-01-19 04:35"), (21, 0.5625049, "13:30:00"),
         (46, 1.5625, "37:30:00"), (22, 42731.99999999, "2016-12-28 00:00"), (14, 60.0, "1900-02-29"),
         (22, 0.6666666666666666, "16:00"), ("0.00\" days\"", 3.0, "3")]


# ------------------------------------------------------------------------------------------- an .xls writer


def _biff(kind: int, body: bytes) -> bytes:
    return struct.pack("<HH", kind, len(body)) + body


def _xf(fmt: int, style: bool) -> bytes:
    """A BIFF8 XF record: font 0, number format `fmt`; a style XF (parent 0xFFF) or a cell XF of style 0."""
    return _biff(0x00E0, struct.pack("<HHHBBBBIIH", 0, fmt, 0xFFF5 if style else 0x0001, 0x20, 0, 0, 0, 0, 0, 0x20C0))


def xls_stream(cells: list[tuple[object, float]], date1904: bool = False) -> bytes:
    """One sheet "S" whose row r holds cells[r]: its value in a NUMBER cell styled with its number format (a
    built-in id, a FORMAT code, or None for General)."""
    bof = lambda dt: _biff(0x0809, struct.pack("<HHHHII", 0x0600, dt, 0x0DBB, 0x07CC, 0, 0x06))  # noqa: E731
    font = _biff(0x0031, struct.pack("<HHHHHBBBB", 200, 0, 0x7FFF, 400, 0, 0, 0, 0, 0) + b"\x05\x01"
                 + "Arial".encode("utf-16-le"))
    formats, xfs, cell_xf = b"", _xf(0, True) * 16, []
    for n, (code, _) in enumerate(cells):
        fmt = 0 if code is None else code if isinstance(code, int) else 164 + n
        if isinstance(code, str):
            formats += _biff(0x041E, struct.pack("<HHB", fmt, len(code), 1) + code.encode("utf-16-le"))
        cell_xf.append(16 + n)
        xfs += _xf(fmt, False)
    globals_ = (bof(0x0005) + _biff(0x0022, struct.pack("<H", int(date1904))) + font * 5 + formats + xfs)
    eof = _biff(0x000A, b"")
    sheet_at = len(globals_) + 4 + 8 + 2 + len(eof)
    sheet = bof(0x0010) + b"".join(_biff(0x0203, struct.pack("<HHHd", r, 0, cell_xf[r], value))
                                   for r, (_, value) in enumerate(cells)) + eof
    bound = _biff(0x0085, struct.pack("<IBBBB", sheet_at, 0, 0, 1, 1) + "S".encode("utf-16-le"))
    return globals_ + bound + eof + sheet


def make_xls(path: Path, cells: list[tuple[object, float]], date1904: bool = False) -> Path:
    path.write_bytes(cfb({"Workbook": xls_stream(cells, date1904).ljust(4096, b"\0")}))
    return path


# ------------------------------------------------------------------------------------------ the same, as .xlsx


def make_styled_xlsx(path: Path, cells: list[tuple[object, str]], date1904: bool = False) -> Path:
    """One sheet "S" whose row r holds cells[r]: its value as written in <v>, styled with its number format."""
    rows = "".join(f'<row r="{r + 1}"><c r="A{r + 1}" s="{r}"><v>{v}</v></c></row>' for r, (_, v) in enumerate(cells))
    make_xlsx(path, [("S", rows)], [])
    codes = {n: code for n, (code, _) in enumerate(cells) if isinstance(code, str)}
    num_fmts = "".join(f'<numFmt numFmtId="{164 + n}" formatCode="{code.replace(chr(34), "&quot;")}"/>'
                       for n, code in codes.items())
    xfs = "".join(f'<xf numFmtId="{0 if c is None else c if isinstance(c, int) else 164 + n}"/>'
                  for n, (c, _) in enumerate(cells))
    with zipfile.ZipFile(path) as z:
        parts = {i.filename: z.read(i).decode() for i in z.infolist()}
    parts["xl/styles.xml"] = (f'<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
                              f"<numFmts>{num_fmts}</numFmts><cellXfs>{xfs}</cellXfs></styleSheet>")
    parts["xl/_rels/workbook.xml.rels"] = parts["xl/_rels/workbook.xml.rels"].replace(
        "</Relationships>", f'<Relationship Id="rIdT" Type="{REL}/styles" Target="styles.xml"/></Relationships>')
    if date1904:
        parts["xl/workbook.xml"] = parts["xl/workbook.xml"].replace("<sheets>", '<workbookPr date1904="1"/><sheets>')
    return write_zip(path, parts)


def _lines(path: Path) -> list[str]:
    return extract(path).text.split("\n")[1:]


# ----------------------------------------------------------------------------------------------------- tests


def test_xlsx_numbers_read_as_the_shortest_text_of_their_double(tmp_path: Path) -> None:
    # As Excel 2007 and later write them: 17 significant digits, an exponent with a capital E.
    written = ["19.989999999999998", "2.5000000000000001E-2", "-1599.99", "198356388", "1234567890123456",
               "1E+20", "9.9999999999999995E-8", "-0"]
    path = make_styled_xlsx(tmp_path / "n.xlsx", [(None, v) for v in written])
    assert _lines(path) == [text for _, _, text in NUMBERS]


def test_xlsx_text_boolean_and_error_cells_stay_as_written(tmp_path: Path) -> None:
    rows = ('<row><c t="s"><v>0</v></c><c t="inlineStr"><is><t>19.989999999999998</t></is></c><c t="b"><v>1</v></c>'
            '<c t="e"><v>#DIV/0!</v></c><c t="str"><f>A1</f><v>2.50E-2</v></c><c><v>not a number</v></c></row>')
    path = make_xlsx(tmp_path / "t.xlsx", [("S", rows)], ["<si><t>007</t></si>"])
    assert _lines(path) == ["007 | 19.989999999999998 | TRUE | #DIV/0! | 2.50E-2 | not a number"]


def test_xls_and_xlsx_give_a_number_the_same_text(tmp_path: Path) -> None:
    cells = [(code, value) for code, value, _ in NUMBERS]
    expected = [text for _, _, text in NUMBERS]
    assert _lines(make_xls(tmp_path / "n.xls", cells)) == expected
    assert _lines(make_styled_xlsx(tmp_path / "n.xlsx", [(c, repr(v)) for c, v in cells])) == expected


def test_xls_and_xlsx_give_a_date_or_time_the_same_text_to_the_second(tmp_path: Path) -> None:
    cells = [(code, value) for code, value, _ in DATES]
    expected = [text for _, _, text in DATES]
    assert _lines(make_xls(tmp_path / "d.xls", cells)) == expected
    assert _lines(make_styled_xlsx(tmp_path / "d.xlsx", [(c, repr(v)) for c, v in cells])) == expected


def test_xls_dates_of_a_1904_workbook(tmp_path: Path) -> None:
    cells = [(14, 41269.0), (22, 41269.5)]
    assert _lines(make_xls(tmp_path / "m.xls", cells, date1904=True)) == ["2016-12-27", "2016-12-27 12:00"]
    xlsx = make_styled_xlsx(tmp_path / "m.xlsx", [(c, repr(v)) for c, v in cells], date1904=True)
    assert _lines(xlsx) == ["2016-12-27", "2016-12-27 12:00"]


def test_xls_dates_in_a_format_xlrd_knows_by_number_only(tmp_path: Path) -> None:
    # Built-in 31 is a CJK date format whose code depends on the locale: a date, its code unknown.
    assert _lines(make_xls(tmp_path / "j.xls", [(31, 42731.0), (31, 42731.5)])) == ["2016-12-27",
                                                                                   "2016-12-27 12:00"]


# ----------------------------------------------------------------------------- Excel 2.x to 4.0 (BIFF2-4)


def bare_biff(version: int, label: str, numbers: list[tuple[float, int]], filepass: bool = False) -> bytes:
    """A worksheet as Excel `version` (2, 3 or 4) saved it: its BIFF records alone, no OLE container. Row 1 holds
    `label`, row 2 the numbers, each with a number format: 0 General, 1 m/d/yy (a FORMAT record each)."""
    bof = {2: _biff(0x0009, struct.pack("<HH", 0, 0x10)), 3: _biff(0x0209, struct.pack("<HHH", 0, 0x10, 0)),
           4: _biff(0x0409, struct.pack("<HHH", 0, 0x10, 0))}[version]
    prefix = b"\0\0" if version == 4 else b""
    formats = b"".join(_biff(0x041E if version == 4 else 0x001E, prefix + bytes([len(c)]) + c.encode())
                       for c in ("General", "m/d/yy"))
    out = bof + (_biff(0x002F, b"\0" * 4) if filepass else b"") + formats
    if version == 2:  # a cell's format index is in its own attribute bytes; no XF records
        out += _biff(0x0004, struct.pack("<HH3sB", 0, 0, b"\0\0\0", len(label)) + label.encode("cp1252"))
        out += b"".join(_biff(0x0003, struct.pack("<HH3sd", 1, c, bytes([0, f, 0]), v))
                        for c, (v, f) in enumerate(numbers))
    else:
        xf, layout = (0x0443, "<BBHBBHI") if version == 4 else (0x0243, "<BBBBHHI")
        out += b"".join(_biff(xf, struct.pack(layout, 0, f, 1, 0, 0, 0, 0)) for f in (0, 1))
        out += _biff(0x0204, struct.pack("<HHHH", 0, 0, 0, len(label)) + label.encode("cp1252"))
        out += b"".join(_biff(0x0203, struct.pack("<HHHd", 1, c, f, v)) for c, (v, f) in enumerate(numbers))
    return out + _biff(0x000A, b"")


@pytest.mark.parametrize("version", [2, 3, 4])
def test_excel_2_3_and_4_workbooks_are_read(tmp_path: Path, version: int) -> None:
    path = tmp_path / f"excel{version}.xls"
    path.write_bytes(bare_biff(version, "Table C-13--Lemons: Utilization", [(19.99, 0), (42731.0, 1)]))
    doc = extract(path)
    assert doc.kind == "xls" and doc.text == "Sheet 1\nTable C-13--Lemons: Utilization\n19.99 | 2016-12-27"


def test_an_excel_4_workbook_with_a_password_says_so(tmp_path: Path) -> None:
    path = tmp_path / "locked.xls"
    path.write_bytes(bare_biff(4, "secret", [], filepass=True))
    with pytest.raises(UnsupportedFileError, match="^encrypted: password-protected, not indexed$"):
        extract(path)


def test_a_bare_workbook_that_cannot_be_read_names_its_format(tmp_path: Path) -> None:
    unknown = tmp_path / "unknown.xls"  # a BIFF5-8 BOF of a version no Excel wrote
    unknown.write_bytes(_biff(0x0809, struct.pack("<HHHHII", 0x0123, 0x0005, 0, 0, 0, 0)) + _biff(0x000A, b""))
    with pytest.raises(UnsupportedFileError, match="^Excel 5.0 or later workbook: not supported$"):
        extract(unknown)
    cut = tmp_path / "cut.xls"
    cut.write_bytes(bare_biff(4, "A label long enough to be cut " * 4, [(1.5, 0)])[:120])
    with pytest.raises(ExtractionError, match="^corrupt Excel 4.0 workbook: "):
        extract(cut)


def test_a_bare_workbook_past_the_byte_cap_is_refused(tmp_path: Path) -> None:
    from searchapp.ingest.extractors import legacy_office

    path = tmp_path / "big.xls"
    path.write_bytes(bare_biff(4, "A label " * 30, [(1.5, 0)]))
    with pytest.raises(ExtractionError, match="^big.xls is larger than 200 bytes$"):
        legacy_office.extract_xls(path, 200)
    assert "A label" in legacy_office.extract_xls(path, 1000).text


def test_only_a_workbook_bof_makes_a_bare_workbook(tmp_path: Path) -> None:
    from searchapp.ingest.extractors import xls97

    path = tmp_path / "x.xls"
    for data, what in [(bare_biff(3, "x", []), "Excel 3.0"),
                       ("\tQty\t\tPrice\n".encode("utf-16-le"), ""),  # a tab in UTF-16: the same two bytes as BIFF2's BOF
                       (_biff(0x0409, struct.pack("<HHH", 0, 0x0020, 0)), ""),  # an Excel 4.0 chart
                       (b"\x09\x04", "")]:
        path.write_bytes(data)
        assert xls97.bare_format(path) == what


# ------------------------------------------------------------------------------------------ .xlsx comments


def with_comments(path: Path, sheet: int, comments: list[tuple[str, str]], part: str = "comments1.xml") -> Path:
    """The workbook at `path`, its worksheet part `sheet` given a comments part: (cell, text) each, as Excel
    writes them: the author's name in a bold run of its own, the text after a line break, a phonetic run."""
    with zipfile.ZipFile(path) as z:
        parts = {i.filename: z.read(i).decode() for i in z.infolist()}
    body = "".join(f'<comment ref="{ref}" authorId="0"><text><r><rPr><b/></rPr><t>Author:</t></r>'
                   f'<r><t xml:space="preserve">\n{text}\n</t></r><rPh><t>PHONETIC</t></rPh></text></comment>'
                   for ref, text in comments)
    parts[f"xl/{part}"] = (f'<comments xmlns="{SML}"><authors><author>Author</author></authors>'
                           f"<commentList>{body}</commentList></comments>")
    parts[f"xl/worksheets/_rels/sheet{sheet}.xml.rels"] = rels(("rId1", f"{REL}/comments", f"../{part}"))
    return write_zip(path, parts)


def test_xlsx_comments_follow_their_sheets_cells(tmp_path: Path) -> None:
    first = '<row><c t="inlineStr"><is><t>Here is some text</t></is></c></row>'
    second = '<row><c t="inlineStr"><is><t>Quinces</t></is></c><c><v>3</v></c></row>'
    path = make_xlsx(tmp_path / "c.xlsx", [("Notes", first), ("Orchard", second)], [])  # parts in reverse order
    with_comments(path, 2, [("A1", "Here is a comment"), ("C7", "Ask Ann")])
    with_comments(path, 1, [("B1", "Count them again")], part="comments2.xml")
    doc = extract(path)
    assert doc.text == ("Notes\nHere is some text\nComment A1: Author: Here is a comment\nComment C7: Author: Ask Ann"
                        "\n\nOrchard\nQuinces | 3\nComment B1: Author: Count them again")
    assert doc.page_at(doc.text.index("Count them")) == 2


def test_xlsx_comments_count_against_the_cell_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sheets, "MAX_CELLS", 4)
    rows = '<row><c t="inlineStr"><is><t>Plums</t></is></c><c><v>2</v></c></row>'
    path = make_xlsx(tmp_path / "c.xlsx", [("S", rows), ("Later", rows)], [])
    with_comments(path, 2, [(f"A{i}", f"Note {i}") for i in range(1, 6)])
    doc = extract(path)
    assert doc.text == "S\nPlums | 2\nComment A1: Author: Note 1\nComment A2: Author: Note 2"
    assert "only the first 4 cells read" in doc.notes


def test_a_broken_comments_part_leaves_the_cells_readable(tmp_path: Path) -> None:
    path = make_xlsx(tmp_path / "c.xlsx", [("S", '<row><c t="inlineStr"><is><t>Plums</t></is></c></row>')], [])
    with zipfile.ZipFile(path) as z:
        parts = {i.filename: z.read(i).decode() for i in z.infolist()}
    parts["xl/comments1.xml"] = f'<comments xmlns="{SML}"><commentList><comment ref="A1"><text><t>cut'
    parts["xl/worksheets/_rels/sheet1.xml.rels"] = rels(("rId1", f"{REL}/comments", "../comments1.xml"))
    doc = extract(write_zip(path, parts))
    assert doc.text == "S\nPlums" and any(n.startswith("comments left out: ") for n in doc.notes)


def test_xlsx_threaded_comments_are_read_without_their_legacy_copy(tmp_path: Path) -> None:
    path = make_xlsx(tmp_path / "t.xlsx", [("S", '<row><c t="inlineStr"><is><t>Plums</t></is></c></row>')], [])
    with_comments(path, 1, [("A3", "[Threaded comment] Your version of Excel allows you to read this threaded "
                                   "comment... Comment: test comment"), ("B2", "A note")])
    with zipfile.ZipFile(path) as z:
        parts = {i.filename: z.read(i).decode() for i in z.infolist()}
    ns = "http://schemas.microsoft.com/office/spreadsheetml/2018/threadedcomments"
    parts["xl/threadedComments/threadedComment1.xml"] = (
        f'<ThreadedComments xmlns="{ns}"><threadedComment ref="A3" id="{{1}}"><text>test comment</text>'
        '</threadedComment><threadedComment ref="A3" id="{2}" parentId="{1}"><text>a reply</text>'
        "</threadedComment></ThreadedComments>")
    parts["xl/worksheets/_rels/sheet1.xml.rels"] = rels(
        ("rId1", f"{REL}/comments", "../comments1.xml"),
        ("rId2", "http://schemas.microsoft.com/office/2017/10/relationships/threadedComment",
         "../threadedComments/threadedComment1.xml"))
    doc = extract(write_zip(path, parts))
    assert doc.text == ("S\nPlums\nComment A3: test comment\nComment A3: a reply\nComment B2: Author: A note")


def test_xlsx_headers_footers_and_text_boxes_follow_their_sheets_cells(tmp_path: Path) -> None:
    # tika's testEXCEL_headers_footers.xlsx and testEXCEL_textbox.xlsx: "Header - Corporate Spreadsheet" and
    # "some autoshape" were in no passage
    rows = '<row><c t="inlineStr"><is><t>Quinces</t></is></c></row>'
    tails = (header_footer('&L&"Arial,Bold"&14Harbour Board&CPage &P of &N&R&D Q&&A', "&CHarbour Board"), "")
    path = make_xlsx(tmp_path / "h.xlsx", [("Orchard", rows), ("Later", rows)], [], tails=tails)
    with_drawing(path, 2, [["this is some autoshape text", "a second line"], ["this is some autoshape text"]])
    doc = extract(path)
    assert doc.text == ("Orchard\nQuinces\nHarbour Board Page of Q&A\nHarbour Board\n"
                        "this is some autoshape text\na second line\n\nLater\nQuinces")


def test_xlsx_text_boxes_count_against_the_cell_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sheets, "MAX_CELLS", 3)
    path = make_xlsx(tmp_path / "c.xlsx", [("S", '<row><c t="inlineStr"><is><t>Plums</t></is></c></row>')], [])
    doc = extract(with_drawing(path, 1, [[f"box {i}" for i in range(5)]]))
    assert doc.text == "S\nPlums\nbox 0\nbox 1" and "only the first 3 cells read" in doc.notes
