"""Word .docx headers and footers: read after the body, each text once (Tika's testWORD_various.docx had
"This is the header text." in word/header1.xml, never read, where a .doc's headers are)."""

from __future__ import annotations

from pathlib import Path

import pytest

from searchapp.ingest.extractors import extract


def test_docx_headers_and_footers_are_read_once_after_the_body(tmp_path: Path) -> None:
    """word/header1.xml was never read (a .doc's headers are): a letter was not found by its letterhead. Each
    section may have its own header part holding the same words: they are read once."""
    import docx
    from docx.enum.section import WD_SECTION

    d = docx.Document()
    d.add_paragraph("Body words of the first section")
    first = d.sections[0]
    first.header.paragraphs[0].text = "Orchard Cooperative letterhead"
    first.footer.paragraphs[0].text = "Registered in Lyon"
    d.add_section(WD_SECTION.NEW_PAGE)
    second = d.sections[1]
    second.header.is_linked_to_previous = False  # a header part of its own, the same words
    second.header.paragraphs[0].text = "Orchard Cooperative letterhead"
    second.footer.is_linked_to_previous = False
    second.footer.paragraphs[0].text = "Second section footer"
    d.add_paragraph("Body words of the second section")
    path = tmp_path / "letter.docx"
    d.save(str(path))
    assert extract(path).text.split("\n\n") == [
        "Body words of the first section", "Body words of the second section",
        "Orchard Cooperative letterhead", "Registered in Lyon", "Second section footer"]


def test_a_docx_header_past_its_cap_keeps_what_came_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import docx

    from searchapp.ingest.extractors import docx as docx_reader

    d = docx.Document()
    d.add_paragraph("Body")
    header = d.sections[0].header
    header.paragraphs[0].text = "First header line"
    for i in range(5000):  # about 400 KB of XML
        header.add_paragraph(f"filler line {i}")
    path = tmp_path / "long_header.docx"
    d.save(str(path))
    monkeypatch.setattr(docx_reader, "MAX_HEADER_BYTES", 100_000)  # parts are read 64 KB at a time
    paragraphs = extract(path).text.split("\n\n")
    assert paragraphs[:2] == ["Body", "First header line"] and "filler line 4999" not in paragraphs
