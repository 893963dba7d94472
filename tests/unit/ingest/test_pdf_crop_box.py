"""A PDF page is what lies within its CropBox: the words a viewer cannot show (printers' marks, a slug line, the
rest of a larger sheet) are not indexed; a word partly inside is; a CropBox that is the MediaBox, a point or two
off or broken changes nothing and costs nothing. Every PDF is written here byte by byte (tests/pdf_files.py)."""

from __future__ import annotations

import pytest

from pdf_files import cropped_pdf

from searchapp.base.types import Document
from searchapp.ingest.extractors import extract
from searchapp.ingest.extractors import pdf as pdf_module

# A Letter sheet whose CropBox (100 100 400 500) shows its middle: two lines outside it, one across its left edge.
SHEET = [(150, 300, "visible words here"), (20, 20, "printers mark"), (150, 700, "slug outside"),
         (60, 200, "edge crossing line")]
CROP = b"100 100 400 500"
WHOLE = "visible words here\nprinters mark\nslug outside\nedge crossing line"
SHOWN = "visible words here\ncrossing line"  # "edge" lies left of the CropBox, "crossing" across its edge


def _pages(doc: Document) -> list[str]:
    return [doc.text[p.start:p.end] for p in doc.pages]


@pytest.mark.parametrize("rotate, crop", [(0, CROP), (90, CROP), (0, b"400 500 100 100")])
def test_words_outside_the_crop_box_are_not_indexed(tmp_path, rotate, crop):
    """Printers' marks and a slug line were found on the page they are cut off; a quarter turn or the box's
    corners given the other way round change nothing."""
    pytest.importorskip("pypdfium2")  # the ocr extra
    doc = extract(cropped_pdf(tmp_path / "cropped.pdf", SHEET, [crop, None], rotate=rotate))
    assert _pages(doc) == [SHOWN, WHOLE]
    assert [p.page for p in doc.pages] == [1, 2]


def test_a_character_beyond_u_ffff_keeps_the_words_in_their_place(tmp_path):
    """pdfium lists "𝑁" as two units, Python has one character: the words are matched to their boxes unit by unit."""
    pytest.importorskip("pypdfium2")  # the ocr extra
    sheet = [(150, 300, "let ~ be visible"), (20, 20, "~ printers mark"), (60, 200, "edge crossing ~ line")]
    doc = extract(cropped_pdf(tmp_path / "maths.pdf", sheet, [CROP], tilde="\U0001d441"))
    assert _pages(doc) == ["let \U0001d441 be visible\ncrossing \U0001d441 line"]


def test_a_larger_sheet_cut_into_pages_gives_each_page_its_own_part(tmp_path):
    """Two pages drawn by one content stream (read once by pypdf), each showing half of the sheet."""
    pytest.importorskip("pypdfium2")  # the ocr extra
    halves = [(40, 400, "left column words"), (340, 400, "right column words")]
    doc = extract(cropped_pdf(tmp_path / "sheet.pdf", halves, [b"0 0 306 792", b"306 0 612 792"]))
    assert _pages(doc) == ["left column words", "right column words"]


def test_a_pdf_read_whole_by_pdfium_leaves_out_what_its_crop_box_hides(tmp_path):
    pytest.importorskip("pypdfium2")  # the ocr extra
    path = cropped_pdf(tmp_path / "cut.pdf", SHEET, [CROP])
    data = path.read_bytes()
    path.write_bytes(data[:data.rindex(b"startxref")])  # pypdf cannot open it: pdfium reads it whole
    doc = extract(path)
    assert any(n.startswith("read by pdfium") for n in doc.notes)
    assert _pages(doc) == [SHOWN]


@pytest.mark.parametrize("crop", [b"0 0 612 792", b"0.5 -1 611 793", b"612 792 0 0", b"0 0 0 0",
                                  b"700 800 900 1000", b"/a /b /c /d"])
def test_a_crop_box_that_is_the_media_box_or_broken_keeps_every_word_without_asking_pdfium(tmp_path, monkeypatch,
                                                                                            crop):
    """The same box, a point off (rounding), its corners given the other way round, no area, off the sheet or not
    numbers: the page is read whole, as pypdf reads it, and pdfium is never opened for it."""
    def no_pdfium(data):
        raise AssertionError("pdfium opened for a page its CropBox does not cut")

    monkeypatch.setattr(pdf_module, "PdfiumDoc", no_pdfium)
    doc = extract(cropped_pdf(tmp_path / "uncut.pdf", SHEET, [crop, None]))
    assert _pages(doc) == [WHOLE, WHOLE]


def test_a_crop_box_that_hides_no_word_keeps_pypdf_s_text(tmp_path, caplog):
    """Margins cropped off: pypdf stays the reader (it keeps word spaces pdfium drops)."""
    pytest.importorskip("pypdfium2")  # the ocr extra
    inside = [(150, 300, "visible words here"), (150, 200, "and a second line")]
    with caplog.at_level("INFO", logger=pdf_module.__name__):
        doc = extract(cropped_pdf(tmp_path / "margins.pdf", inside, [CROP]))
        assert "outside their CropBox" not in caplog.text
        extract(cropped_pdf(tmp_path / "cropped.pdf", SHEET, [CROP]))
        assert "1 page(s) read with pdfium, without the words outside their CropBox" in caplog.text
    assert _pages(doc) == ["visible words here\nand a second line"]


def test_without_pdfium_a_cropped_page_is_read_whole(tmp_path, monkeypatch):
    monkeypatch.setattr(pdf_module, "available", lambda: False)
    doc = extract(cropped_pdf(tmp_path / "cropped.pdf", SHEET, [CROP]))
    assert _pages(doc) == [WHOLE]
