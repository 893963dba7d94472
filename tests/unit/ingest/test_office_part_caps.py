"""Hostile spreadsheets and slides: empty cells written one by one, parts far larger than any real one, a
huge relationships part. Each file is built here, small, with the cap it meets lowered where it needs to
be: what is checked is what comes out and what is never read, not how long it takes."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from searchapp.base.errors import ExtractionError
from searchapp.ingest.extractors import extract, odp, opc, sheets, xlsx
from searchapp.ingest.extractors.sheets import CELL_SEPARATOR, MAX_EMPTY_RUN, Workbook
from searchapp.ingest.extractors.ziputil import SafeZip

from office_files import REL, make_pptx, make_xlsx, shape, slide_xml, write_zip

GAP = CELL_SEPARATOR * (MAX_EMPTY_RUN + 1)  # "A", at most MAX_EMPTY_RUN empty cells, "Z"
ODF_NS = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
          'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
          'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
          'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
          'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"')


def raw_ods(path: Path, tables: str) -> Path:
    content = (f'<office:document-content {ODF_NS}><office:body><office:spreadsheet>{tables}'
               '</office:spreadsheet></office:body></office:document-content>')
    return write_zip(path, {"mimetype": "application/vnd.oasis.opendocument.spreadsheet", "content.xml": content})


def column(n: int) -> str:
    name = ""
    while n:
        n, r = divmod(n - 1, 26)
        name = chr(65 + r) + name
    return name


@pytest.fixture
def whole_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The parts read whole (SafeZip.read, which z.xml() uses): a streamed part never appears here."""
    seen: list[str] = []
    real = SafeZip.read

    def read(self, name):
        seen.append(name)
        return real(self, name)

    monkeypatch.setattr(SafeZip, "read", read)
    return seen


def _inline(ref: str, text: str) -> str:
    return f'<c r="{ref}" t="inlineStr"><is><t>{text}</t></is></c>'


# --------------------------------------------------------------------------- empty cells, however written

def test_xlsx_empty_cells_written_one_by_one_are_one_gap(tmp_path: Path) -> None:
    # Excel writes a styled empty cell as <c r="B1" s="3"/>; a cell may leave out its reference, or hold an
    # empty value. A few thousand of each between two words made a line of thousands of separators.
    ways = {"referenced": "".join(f'<c r="{column(i)}1" s="3"/>' for i in range(2, 3002)),
            "bare": "<c/>" * 3000,
            "empty value": "<c><v></v></c>" * 3000}
    for way, empties in ways.items():
        rows = f'<row r="1">{_inline("A1", "Alder")}{empties}<c t="inlineStr"><is><t>Zinnia</t></is></c></row>'
        doc = extract(make_xlsx(tmp_path / f"{way}.xlsx", [("S", rows)], []))
        assert doc.text == f"S\nAlder{GAP}Zinnia", way


def test_ods_empty_cells_written_one_by_one_are_one_gap(tmp_path: Path) -> None:
    cell = "<table:table-cell><text:p>{}</text:p></table:table-cell>"
    empties = '<table:table-cell table:style-name="ce1"/>' * 3000 + '<table:covered-table-cell/>' * 3000
    doc = extract(raw_ods(tmp_path / "e.ods", f'<table:table table:name="T"><table:table-row>{cell.format("Alder")}'
                          f'{empties}{cell.format("Zinnia")}</table:table-row></table:table>'))
    assert doc.text == f"T\nAlder{GAP}Zinnia"


def test_empty_cells_count_toward_the_cells_written_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Reading costs per element, empty or not: a file of nothing but empty cells stops at MAX_WRITTEN.
    monkeypatch.setattr(sheets, "MAX_WRITTEN", 1000, raising=False)
    note = "reading stopped after 1,000 cells and rows, most of them empty"
    rows = "".join(f'<row>{_inline(f"A{r}", f"early{r}")}{"<c/>" * 400}</row>' for r in range(3)) \
        + f'<row>{_inline("A4", "late")}</row>'
    doc = extract(make_xlsx(tmp_path / "w.xlsx", [("S", rows)], []))
    assert "early0" in doc.text and "early2" not in doc.text and "late" not in doc.text
    assert note in doc.notes
    table = "".join(f"<table:table-row><table:table-cell><text:p>early{r}</text:p></table:table-cell>"
                    + "<table:table-cell/>" * 400 + "</table:table-row>" for r in range(3))
    doc = extract(raw_ods(tmp_path / "w.ods", f'<table:table table:name="T">{table}<table:table-row>'
                          '<table:table-cell><text:p>late</text:p></table:table-cell></table:table-row></table:table>'))
    assert "early0" in doc.text and "late" not in doc.text and note in doc.notes


def test_a_row_stops_growing_at_the_text_cap() -> None:
    # 10,000 cells of 1,000 characters (shared strings can repeat one long string at a few bytes a cell):
    # the row stops at the text budget instead of becoming a 10 MB line first.
    if not hasattr(Workbook, "cell"):
        pytest.fail("a row is read whole before any cap applies (no Workbook.cell)")
    book = Workbook(max_chars=5000)
    book.start_sheet(1, "S")
    for _ in range(10_000):
        book.cell("x" * 1000)
        if book.full:
            break
    assert book.full
    doc = book.document("xlsx")
    assert 5000 <= len(doc.text) < 8000 and doc.text.startswith("S\nxxx")


# --------------------------------------------------------------------------- parts over their byte caps

def test_a_worksheet_over_its_byte_cap_keeps_what_came_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                whole_reads: list[str]) -> None:
    monkeypatch.setattr(xlsx, "MAX_SHEET_BYTES", 50_000, raising=False)
    rows = "".join(f'<row r="{r}">{_inline(f"A{r}", f"word{r}")}</row>' for r in range(1, 3001))  # ~150 KB
    doc = extract(make_xlsx(tmp_path / "big.xlsx", [("S", rows), ("Next", f"<row>{_inline('A1', 'Nutmeg')}</row>")],
                            []))
    assert doc.text.startswith("S\nword1\nword2\n") and "word3000" not in doc.text
    assert doc.page_at(doc.text.index("Nutmeg")) == 2  # the next sheet is read
    assert "xl/worksheets/sheet2.xml: only its first 50,000 bytes read" in doc.notes
    assert not any("worksheets" in name for name in whole_reads)


def _odp(path: Path, slides: int, words: int = 20) -> Path:
    body = "".join(f"<draw:page><draw:frame><draw:text-box><text:p>Slide {i} "
                   + " ".join(f"<text:span>w{j}</text:span>" for j in range(words)) + "</text:p></draw:text-box>"
                   f"</draw:frame><presentation:notes><draw:frame><draw:text-box><text:p>Say {i}</text:p>"
                   "</draw:text-box></draw:frame></presentation:notes></draw:page>" for i in range(1, slides + 1))
    return write_zip(path, {"mimetype": "application/vnd.oasis.opendocument.presentation",
                            "content.xml": f"<office:document-content {ODF_NS}><office:body><office:presentation>"
                                           f"{body}</office:presentation></office:body></office:document-content>"})


def test_odp_content_is_streamed_and_capped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            whole_reads: list[str]) -> None:
    path = _odp(tmp_path / "deck.odp", 2000)  # ~750 KB of content.xml
    doc = extract(path)
    assert doc.page_at(doc.text.index("Slide 2000 ")) == 2000 and "Notes: Say 2000" in doc.text
    assert "content.xml" not in whole_reads  # never one tree: a 190 MB content.xml held 2.3 GB
    monkeypatch.setattr(odp, "MAX_CONTENT_BYTES", 100_000, raising=False)
    doc = extract(path)
    assert "Slide 1 w0" in doc.text and "Slide 2000 " not in doc.text
    assert "content.xml: only its first 100,000 bytes read" in doc.notes


def test_odp_slide_cap_without_reading_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(odp, "MAX_SLIDES", 5)
    doc = extract(_odp(tmp_path / "d.odp", 8))
    assert [p.page for p in doc.pages] == [1, 2, 3, 4, 5] and "only the first 5 slides read" in doc.notes
    assert "only the first" not in " ".join(extract(_odp(tmp_path / "e.odp", 5)).notes)


def _pptx_with_rels(tmp_path: Path, name: str, rels_part: str, n: int) -> Path:
    path = make_pptx(tmp_path / name, [(["Tomatoes ripen slowly"], ["Mention the greenhouse"])])
    with zipfile.ZipFile(path) as z:
        parts = {i.filename: z.read(i) for i in z.infolist()}
    original = parts[rels_part].decode()
    body = "".join(f'<Relationship Id="rX{i}" Type="{REL}/notesSlide" Target="../missing/n{i}.xml"/>'
                   for i in range(n))
    parts[rels_part] = original.replace("</Relationships>", body + "</Relationships>")
    return write_zip(tmp_path / name, parts)


def test_pptx_relationship_parts_over_their_cap_are_refused_unread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                     whole_reads: list[str]) -> None:
    monkeypatch.setattr(opc, "MAX_RELS_BYTES", 100_000, raising=False)
    # A slide's relationships part of ~1 MB: its notes are skipped with the reason, its text is kept.
    doc = extract(_pptx_with_rels(tmp_path, "s.pptx", "ppt/slides/_rels/slide1.xml.rels", 10_000))
    assert doc.text == "Tomatoes ripen slowly"
    assert ("speaker notes and comments of ppt/slides/slide1.xml skipped: ppt/slides/_rels/slide1.xml.rels is larger than "
            "100,000 bytes") in doc.notes
    # The presentation's or the package's own: nothing can be found without them.
    for part in ("ppt/_rels/presentation.xml.rels", "_rels/.rels"):
        with pytest.raises(ExtractionError, match=f"{part} is larger than 100,000 bytes"):
            extract(_pptx_with_rels(tmp_path, "p.pptx", part, 10_000))
    assert not any(name.endswith(".rels") for name in whole_reads)
    # Within the cap, a relationships part is streamed too, and read the same as before.
    monkeypatch.setattr(opc, "MAX_RELS_BYTES", 16 * 2**20)
    doc = extract(_pptx_with_rels(tmp_path, "ok.pptx", "ppt/slides/_rels/slide1.xml.rels", 10_000))
    assert doc.text == "Tomatoes ripen slowly\n\nNotes: Mention the greenhouse"
    assert not any(name.endswith(".rels") for name in whole_reads)


def test_pptx_slides_are_streamed_with_placeholders_and_alternates_left_out(tmp_path: Path,
                                                                             whole_reads: list[str]) -> None:
    alternate = ('<mc:AlternateContent xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006">'
                 f'<mc:Choice Requires="x">{shape(["Chosen"])}</mc:Choice>'
                 f'<mc:Fallback>{shape(["Fallback copy"])}</mc:Fallback></mc:AlternateContent>')
    path = make_pptx(tmp_path / "a.pptx", [(["First"], [])])
    with zipfile.ZipFile(path) as z:
        parts = {i.filename: z.read(i) for i in z.infolist()}
    parts["ppt/slides/slide1.xml"] = slide_xml(shape(["Title|, split"]), shape(["7"], "sldNum"), alternate,
                                               shape(["9/24/2011"], "dt"), shape(["Body"], "body"))
    doc = extract(write_zip(path, parts))
    assert doc.text == "Title, split\nChosen\nBody"
    assert "ppt/slides/slide1.xml" not in whole_reads


# --------------------------------------------------------------------------- the stream itself

def test_xml_stream_drops_what_it_has_passed_and_caps_depth_and_held_subtrees(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from searchapp.ingest.extractors import xmlstream
    from searchapp.ingest.extractors.xmlstream import XmlStream

    path = write_zip(tmp_path / "x.zip", {"flat.xml": "<r>" + "<a/>" * 50_000 + "<h>" + "<b/>" * 500 + "</h></r>",
                                          "deep.xml": "<a>" * 300 + "</a>" * 300})
    monkeypatch.setattr(xmlstream, "MAX_HELD", 100)
    with SafeZip(path) as z:
        stream = XmlStream(z, "flat.xml", frozenset({"h"}))
        widest = 0
        for _, name, el, stack in stream:
            widest = max(widest, len(stack[0]) if stack else 0)
            if name == "h":
                held = len(el)
        assert widest <= 5000  # the elements of one read of the part at most, never all 50,000
        assert held == 100 and stream.cut == 1  # a held subtree keeps MAX_HELD elements, the rest dropped
        with pytest.raises(ExtractionError, match="nests elements more than 256 deep"):
            list(XmlStream(z, "deep.xml"))
